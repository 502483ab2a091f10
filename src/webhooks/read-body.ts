/** The body was larger than the handler's `maxBodyBytes`. */
export const TOO_LARGE = Symbol('too large');

/** The body did not arrive in full within the handler's `bodyTimeoutMs`. */
export const TIMED_OUT = Symbol('timed out');

/** The cause reported when a body did not arrive in time. */
export function bodyTimedOut(timeoutMs: number): Error {
  return new Error(`The body did not arrive in full within bodyTimeoutMs (${timeoutMs} ms).`);
}

/** How long a read may take, and what stops the source when it took too long. */
export interface ReadDeadline {
  readonly timeoutMs: number;
  /** Stops the source (cancels a Fetch stream); called once, when the deadline passed. */
  readonly onTimeout?: (() => void) | undefined;
}

/** Whether a `Content-Length` header already announces more than `maxBytes`. */
export function announcesTooLarge(contentLength: unknown, maxBytes: number): boolean {
  const text = Array.isArray(contentLength) ? contentLength[0] : contentLength;
  return typeof text === 'string' && /^\d+$/.test(text.trim()) && Number(text.trim()) > maxBytes;
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

const encoder = new TextEncoder();

function asBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === 'string') return encoder.encode(chunk);
  throw new TypeError('The request stream yielded something other than bytes; was it put in object mode?');
}

/**
 * Reads a body from chunks, stopping as soon as it passes `maxBytes` (the rest is never buffered) or when the
 * deadline passes. Leaving early calls the iterator's `return`, which cancels a Fetch stream. The one timer is
 * cleared however the read ends.
 */
export async function readLimited(
  chunks: AsyncIterable<unknown>,
  maxBytes: number,
  deadline: ReadDeadline,
): Promise<Uint8Array | typeof TOO_LARGE | typeof TIMED_OUT> {
  const iterator = chunks[Symbol.asyncIterator]();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(resolve, deadline.timeoutMs, TIMED_OUT);
  });
  const parts: Uint8Array[] = [];
  let total = 0;
  let finished = false;
  try {
    for (;;) {
      const pending = iterator.next();
      const step = await Promise.race([pending, expired]);
      if (step === TIMED_OUT) {
        // The pending read settles when the source is stopped or the connection closes; nobody waits for it.
        pending.then(undefined, () => undefined);
        deadline.onTimeout?.();
        return TIMED_OUT;
      }
      if (step.done === true) {
        finished = true;
        return concat(parts, total);
      }
      const bytes = asBytes(step.value);
      total += bytes.byteLength;
      if (total > maxBytes) return TOO_LARGE;
      parts.push(bytes);
    }
  } finally {
    clearTimeout(timer);
    if (!finished) Promise.resolve(iterator.return?.()).then(undefined, () => undefined);
  }
}
