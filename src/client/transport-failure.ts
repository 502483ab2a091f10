import { excerpt } from '../errors/answer.js';
import type { RequestSummary } from '../errors/api-error.js';
import { ConnectionError } from '../errors/transport-errors.js';

// Failures that can only happen before a request is written: the service cannot have acted.
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_INVALID_URL']);
// Failures that mean "not sent" only while connecting: on an open connection (`read`, `write`) the request may be out.
// EMFILE and ENFILE (no file descriptor left for the socket: a burst of thousands of calls at once, each on its own
// connection) and EADDRNOTAVAIL (no local port left) fail the socket before anything is written.
const NOT_SENT_WHILE_CONNECTING = new Set([
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EMFILE',
  'ENFILE',
  'EADDRNOTAVAIL',
]);
const CONNECT_SYSCALLS = new Set(['connect', 'getaddrinfo']);

interface SystemErrorLike {
  code?: unknown;
  syscall?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/** Every error in the cause chain (and in AggregateErrors' `errors`), at most `depth` levels down. */
function chain(error: unknown, depth = 6): SystemErrorLike[] {
  const found: SystemErrorLike[] = [];
  for (let e = error, level = 0; e && typeof e === 'object' && level < depth; level++) {
    const current = e as SystemErrorLike;
    found.push(current);
    for (const inner of Array.isArray(current.errors) ? current.errors : []) {
      if (inner && typeof inner === 'object') found.push(inner as SystemErrorLike);
    }
    e = current.cause;
  }
  return found;
}

/**
 * Whether an error says, by its code and the system call it came from, that the request was never written. Node's
 * fetch refuses the Fetch standard's blocked ports (6000, 6667, ...) before connecting, with a cause that has no code,
 * only the message `bad port`.
 */
function provesNotSent(e: SystemErrorLike): boolean {
  if (e instanceof Error && e.message === 'bad port' && (e as SystemErrorLike).code === undefined) return true;
  if (typeof e.code !== 'string') return false;
  if (NEVER_SENT.has(e.code)) return true;
  return NOT_SENT_WHILE_CONNECTING.has(e.code) && typeof e.syscall === 'string' && CONNECT_SYSCALLS.has(e.syscall);
}

const KEPT_FIELDS = ['code', 'syscall', 'errno', 'address', 'port', 'hostname'] as const;

/**
 * A copy of the failure that carries only its name, message, stack and system fields (code, syscall, …), with every
 * copy of the key replaced. The original may hold the Request and so the Authorization header (ky's and undici's
 * wrappers do, and so may a custom fetch's error), which must never reach an error's `cause`.
 */
function cleanCopy(error: unknown, scrub: (text: string) => string, depth = 4): unknown {
  if (!(error instanceof Error) || depth === 0) {
    return error === undefined || error === null ? error : scrub(excerpt(String(error)));
  }
  const copy = new Error(scrub(error.message));
  copy.name = scrub(error.name);
  copy.stack = scrub(error.stack ?? '');
  for (const field of KEPT_FIELDS) {
    const value = (error as unknown as Record<string, unknown>)[field];
    if (typeof value === 'string') Object.assign(copy, { [field]: scrub(value) });
    if (typeof value === 'number') Object.assign(copy, { [field]: value });
  }
  if (error.cause !== undefined) copy.cause = cleanCopy(error.cause, scrub, depth - 1);
  return copy;
}

/** The innermost error below ky's wrappers, which carry the Request. */
function rootCause(error: unknown): unknown {
  let e = error;
  for (let level = 0; level < 6 && e instanceof Error && 'request' in e && e.cause !== undefined; level++) e = e.cause;
  return e;
}

/**
 * The `ConnectionError` for a failed attempt. It says the service may have acted unless the request was never handed
 * to fetch, or the failure proves it was never written (refused, DNS, or unreachable while connecting).
 */
export function connectionFailure(
  error: unknown,
  context: { dispatched: boolean; request: RequestSummary; scrub: (text: string) => string; earlierSend: boolean },
): ConnectionError {
  const causes = chain(error);
  const codes = [...new Set(causes.map((e) => e.code).filter((code): code is string => typeof code === 'string'))];
  const notSent = !context.dispatched || causes.some(provesNotSent);
  const cause = cleanCopy(rootCause(error), context.scrub);
  // undici's "fetch failed" says nothing by itself: the reason is its cause's message ("bad port", "connect ...").
  const inner = cause instanceof Error && cause.cause instanceof Error ? `: ${cause.cause.message}` : '';
  const detail = cause instanceof Error ? `${cause.message}${inner}` : String(cause);
  const listed = codes.map(context.scrub);
  return new ConnectionError(
    `Could not reach the service at ${context.request.url}: ${detail}${listed.length ? ` (${listed.join(', ')})` : ''}` +
      (notSent ? '' : '; the request may have been sent, so the service may have acted on it'),
    { mayHaveSucceeded: !notSent, request: context.request, cause, earlierSend: context.earlierSend },
  );
}
