// A key function's read, bounded by the call's signal and timeout (issue 28, item 3). Imported on a key function's
// first read. No import but types: a module the client's first chunk also holds would become a chunk of its own,
// so the caller passes the error makers.
import type { RequestSummary } from '../errors/api-error.js';
import type { TimeoutError } from '../errors/transport-errors.js';

/** What bounds a read of a key function: the call's signal and timeout. */
export interface ReadBounds {
  readonly signal: AbortSignal | undefined;
  readonly timeout: number | false;
  /** The call, for the `TimeoutError`. */
  readonly request: RequestSummary;
}

/**
 * `work`, or a rejection as soon as `signal` aborts (its `AbortError`) or `timeout` passes (`TimeoutError`, nothing
 * sent). A key function that never settles cannot hold the call past either; what it returns later is dropped.
 */
export function within<T>(
  work: Promise<T>,
  bounds: ReadBounds,
  aborted: (signal: AbortSignal) => Error,
  Timeout: typeof TimeoutError,
): Promise<T> {
  const { signal, timeout } = bounds;
  if (signal === undefined && timeout === false) return work;
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      done();
      reject(aborted(signal as AbortSignal));
    };
    work.then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (timeout !== false) {
      timer = setTimeout(() => {
        done();
        reject(
          new Timeout(timeout, {
            mayHaveSucceeded: false,
            request: bounds.request,
            cause: new Error('apiKey: the key function did not return within the timeout'),
          }),
        );
      }, timeout);
    }
  });
}
