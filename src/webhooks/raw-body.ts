/** The raw body of a webhook request, exactly as received. */
export type RawBody = string | Uint8Array | ArrayBuffer | ArrayBufferView;

/** How to get the raw body in each framework; part of every "not a raw body" message. */
export const RAW_BODY_HELP =
  'Pass the raw request body exactly as received (a string, Buffer/Uint8Array or ArrayBuffer), never a parsed ' +
  'or re-serialised one: JSON.stringify(JSON.parse(body)) is not byte-for-byte the body that was signed. ' +
  "Express: mount express.raw({ type: 'application/json' }) on the webhook route (before any express.json()) and pass req.body. " +
  'Fetch handlers (Next.js route handlers, Hono, Workers, Bun, Deno): use `await request.text()`. ' +
  "Fastify: register fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => done(null, body)) " +
  'in the webhook route’s plugin and pass request.body.';

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const name = (value as object).constructor?.name;
    return name && name !== 'Object' ? `a ${name}` : 'a parsed object';
  }
  return `a ${typeof value}`;
}

function isArrayBuffer(value: unknown): value is ArrayBuffer {
  // The tag check also recognises an ArrayBuffer of another realm (a vm context, a worker's transfer).
  return value instanceof ArrayBuffer || Object.prototype.toString.call(value) === '[object ArrayBuffer]';
}

/** Whether `value` is something {@link normaliseRawBody} accepts. */
export function isRawBody(value: unknown): value is RawBody {
  return typeof value === 'string' || isArrayBuffer(value) || ArrayBuffer.isView(value);
}

/**
 * The body as a string or as bytes over the same memory (no copy), ready to be signed and parsed.
 * @throws {TypeError} When `value` is not a raw body (a parsed object, null, a number ...), with {@link RAW_BODY_HELP}.
 */
export function normaliseRawBody(value: unknown): string | Uint8Array {
  if (typeof value === 'string' || value instanceof Uint8Array) return value;
  if (isArrayBuffer(value)) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`The webhook body is ${describeValue(value)}, not the raw body. ${RAW_BODY_HELP}`);
}
