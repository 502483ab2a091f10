/**
 * The error a cancelled call rejects with: a standard `AbortError` (a `DOMException`) that carries
 * `signal.reason`. When the reason already is an `AbortError` it is returned as it is.
 */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const error = new DOMException('The operation was aborted', 'AbortError');
  Object.defineProperty(error, 'cause', { value: reason, configurable: true, writable: true });
  return error;
}

/** Resolves after `ms`, or rejects with {@link abortError} as soon as `signal` aborts. */
export function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
