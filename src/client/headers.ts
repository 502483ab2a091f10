// Every header of a call, in one place and under one rule: what a caller may set (at the client's level, `headers`,
// and the call's, `request`'s `options.headers`) and what each attempt sends. A header the SDK owns (the key, the JSON
// it sends and expects) set by the caller is refused at either level with a TypeError, never dropped in silence.
import { describeType } from '../internal/describe.js';
import { userAgent } from './runtime.js';

/** The headers only the SDK sets: the key, and the JSON it sends and expects. */
const OWNED_HEADERS = new Set(['authorization', 'content-type', 'accept']);

/**
 * The headers of the connection and the message framing, which only the HTTP stack sets: undici refuses most of them
 * when it is about to send (a `ConnectionError` that says the service may have acted, though nothing was sent) and
 * ignores `Host`, which another `fetch` may honour and send the key to another virtual host.
 */
const CONNECTION_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'expect',
  'te',
  'trailer',
]);

/** Headers as the send path keeps them: lower-case names, no prototype (`__proto__` is refused anyway). */
export type HeaderRecord = Readonly<Record<string, string>>;

/**
 * What is wrong with a header a caller wants sent, or `undefined`: one the SDK owns, a header of the connection (see
 * {@link CONNECTION_HEADERS}), `__proto__` (fetch implementations read a headers object through plain assignment,
 * where it sets the prototype and the header is lost), or a name or value HTTP cannot carry.
 */
function headerProblem(name: string, value: string, where: string): string | undefined {
  const lower = name.toLowerCase();
  if (lower === '__proto__') return `${where} cannot hold a header named ${name}: fetch would drop it`;
  if (OWNED_HEADERS.has(lower)) {
    return `${where}.${name} cannot be set: the SDK sets Authorization, Content-Type and Accept`;
  }
  if (CONNECTION_HEADERS.has(lower)) {
    return `${where}.${name} cannot be set: the HTTP stack sets Host, Content-Length, Transfer-Encoding, Connection and the other connection headers`;
  }
  try {
    new Headers([[name, value]]);
  } catch {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what makes a value unsendable.
    const why = /[\r\n\u0000]/.test(value)
      ? 'a value must not hold CR, LF or NUL'
      : /[\u0100-\uffff]/.test(value)
        ? 'a value must be Latin-1 text (encode other characters, for example with encodeURIComponent)'
        : 'HTTP cannot carry this name or value';
    return `${where}[${JSON.stringify(name)}] cannot be sent: ${why}`;
  }
  return undefined;
}

/**
 * A caller's headers, checked (strings only, none the SDK or the HTTP stack owns, each one HTTP can carry), as a
 * {@link HeaderRecord}; a name spelt twice in two cases keeps the later value, as a `Headers` would. `where` names the
 * option in the errors: `'headers'` (the client's) or `'request: options.headers'` (the call's).
 * @throws {TypeError} on the first header that breaks the rule.
 */
export function checkHeaders(headers: unknown, where: string): HeaderRecord | undefined {
  if (headers === undefined) return undefined;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw new TypeError(`${where} must be an object of header names to strings; got ${describeType(headers)}`);
  }
  const checked: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') {
      throw new TypeError(
        `${where} must be an object of header names to strings; ${where}.${name} is ${describeType(value)}`,
      );
    }
    const problem = headerProblem(name, value, where);
    if (problem) throw new TypeError(problem);
    checked[name.toLowerCase()] = value;
  }
  return checked;
}

/**
 * The headers every request of a client sends (its checked `headers`, the SDK's `User-Agent`, `Accept`). A caller's
 * User-Agent (an ERP's name and version) is added after the SDK's, so the service can still tell which SDK version
 * sent a request.
 */
export function clientHeaders(checked: HeaderRecord | undefined): HeaderRecord {
  // A plain object (spreading defines each name as an own property): each attempt spreads it (`attemptHeaders`), and
  // an object without a prototype is a dictionary in V8, slower to copy.
  const headers: Record<string, string> = { ...checked };
  const callerAgent = headers['user-agent']?.trim();
  headers['user-agent'] = callerAgent ? `${userAgent()} ${callerAgent}` : userAgent();
  headers.accept = 'application/json';
  return Object.freeze(headers);
}

/**
 * The headers of one attempt: the client's, then the call's (both checked: none the SDK owns), then the key, the
 * body's type. A plain object with lower-case names, built by spreading (which defines each name as an own property,
 * `__proto__` included, though the checks refuse that one): an object without a prototype is a dictionary in V8, which
 * ky and fetch read more slowly, property by property, for each request. The trace context is added by the caller
 * (telemetry).
 */
export function attemptHeaders(
  client: HeaderRecord,
  call: HeaderRecord | undefined,
  authorization: string,
  hasBody: boolean,
): Record<string, string> {
  return hasBody
    ? { ...client, ...call, authorization, 'content-type': 'application/json' }
    : { ...client, ...call, authorization };
}
