/** The body was larger than the handler's `maxBodyBytes`. */
export const TOO_LARGE = Symbol('too large');

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
 * Reads a body from chunks, stopping as soon as it passes `maxBytes` (the rest is never buffered).
 * Leaving the loop early calls the iterator's `return`, which cancels a Fetch stream.
 */
export async function readLimited(
  chunks: AsyncIterable<unknown>,
  maxBytes: number,
): Promise<Uint8Array | typeof TOO_LARGE> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of chunks) {
    const bytes = asBytes(chunk);
    total += bytes.byteLength;
    if (total > maxBytes) return TOO_LARGE;
    parts.push(bytes);
  }
  return concat(parts, total);
}
