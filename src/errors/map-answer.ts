import { PORTAL_ERROR_CODES } from '../internal/portal-error-codes.js';
import type { Redactor } from '../internal/redact.js';
import { type AnswerInfo, excerpt } from './answer.js';
import {
  ApiError,
  type ApiErrorInit,
  BadRequestError,
  ForbiddenError,
  InvalidHashIdError,
  RateLimitError,
  RedirectError,
  ServerError,
  UnauthorizedError,
  UnexpectedResponseError,
} from './api-error.js';
import { parsePortalCode } from './portal-code.js';
import { PortalError } from './portal-error.js';
import { earlierSendMessage } from './transport-errors.js';

export { type AnswerInfo, excerpt, isSuccessAnswer, type SuccessRule } from './answer.js';

const asIs: Redactor = { text: (text) => text, value: (value) => value, distinctive: false };

/** The `error_code`s the SDK knows by name: kept as received, so a short key can never mangle them. */
const KNOWN_CODE = /^(?:UNAUTHORIZED|FORBIDDEN|INVALID_HASH_ID|RATE_LIMITED|PORTAL_ERROR_\d{1,16})$/;

/**
 * Turns an error answer into a typed error. Internal seam: a custom mapping can replace the default. `earlierSend`:
 * an earlier request of the call may have reached the service, so the error says it may have acted, whatever this
 * answer says.
 */
export type ErrorMapper = (answer: AnswerInfo, earlierSend?: boolean) => ApiError;

/** The most of a body that is not JSON an error keeps in `body`, in characters: enough for any error page. */
export const MAX_KEPT_BODY_CHARS = 64 * 1024;

/** A body that is not JSON as an error keeps it: the text as received, up to {@link MAX_KEPT_BODY_CHARS}. */
export function keptBody(text: string): string {
  return text.length > MAX_KEPT_BODY_CHARS ? text.slice(0, MAX_KEPT_BODY_CHARS) : text;
}

/**
 * The three forms of an HTTP date (RFC 9110 section 5.6.7): IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850
 * (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`). `Date.parse` alone reads far more:
 * `-5`, `1,5` and `.5` are dates in 2001, which made an unreadable `Retry-After` read as "retry now".
 */
const HTTP_DATE =
  /^(?:[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]{5,8}, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})$/;

/**
 * Seconds from a `Retry-After` header: delta-seconds or an HTTP date (one in the past is 0). `undefined` when absent
 * or unreadable (a negative number, a date in another format), so the retry policy backs off as without the header.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  if (!HTTP_DATE.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

function headersObject(headers: Headers, redact: Redactor): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const [name, value] of headers) plain[name] = redact.text(value);
  return plain;
}

function envelopeOf(json: unknown): { errorCode?: string; message?: string; errors?: Record<string, unknown> } {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return {};
  const body = json as Record<string, unknown>;
  const errors = body.errors;
  return {
    ...(typeof body.error_code === 'string' ? { errorCode: body.error_code } : {}),
    ...(typeof body.message === 'string' ? { message: body.message } : {}),
    ...(typeof errors === 'object' && errors !== null && !Array.isArray(errors)
      ? { errors: errors as Record<string, unknown> }
      : {}),
  };
}

function describeStatus(answer: AnswerInfo, errorCode: string | undefined): string {
  if (answer.json === undefined) {
    const text = excerpt(answer.bodyText);
    const type = answer.headers.get('content-type') ?? 'no content type';
    return text === ''
      ? `The service answered HTTP ${answer.status} with an empty body`
      : `The service answered HTTP ${answer.status} with a body that is not JSON (${type}): ${text}`;
  }
  const code = errorCode === undefined ? '' : ` (error_code ${errorCode})`;
  return `The service answered HTTP ${answer.status}${code} without an error message`;
}

/**
 * The default mapping from an answer to a typed error: by `error_code` first, then by status.
 * Never throws; a body that is not JSON yields an `ApiError` with the status and a short excerpt in its message, and
 * the text itself (up to 64 KiB) in `body`.
 */
export const mapErrorAnswer: ErrorMapper = (answer, earlierSend = false) => {
  const redact = answer.redact ?? asIs;
  const envelope = envelopeOf(answer.json);
  // The service's own refusal, in its error envelope, is its answer whatever the status says (a gateway may relabel it
  // 502): definitive, never "may have succeeded", never resent (issue 17, finding 3).
  const definitive = isDefinitiveRefusal(answer.json, envelope.errorCode);
  const errorCode =
    envelope.errorCode === undefined || KNOWN_CODE.test(envelope.errorCode)
      ? envelope.errorCode
      : redact.text(envelope.errorCode);
  const init: ApiErrorInit = {
    status: answer.status,
    errorCode,
    message: redact.text(envelope.message?.trim() ? envelope.message : describeStatus(answer, errorCode)),
    errors: redact.value(envelope.errors) as Record<string, unknown> | undefined,
    body: redact.value(answer.json === undefined ? keptBody(answer.bodyText) : answer.json),
    headers: headersObject(answer.headers, redact),
    request: answer.request,
  };
  if (definitive) init.mayHaveSucceeded = false;
  // A 2xx whose body says `success: false` without a refusal code: the status says the service acted, the body says it
  // did not. Not knowing which is true, the error says it may have (a resend could make a second bill).
  else if (answer.status >= 200 && answer.status < 300) init.mayHaveSucceeded = true;
  const redirect = !definitive && ((answer.status >= 300 && answer.status < 400) || answer.redirected);
  if (redirect) {
    const location = answer.headers.get('location');
    init.message =
      `The service answered HTTP ${answer.status}, a redirect${location === null ? '' : ` to ${redact.text(location)}`}; ` +
      'the SDK never follows redirects for the e-way bill POST. Check baseUrl. The service may have acted on the request';
  }
  // After an earlier request that may have reached the service, the call's error says so, whatever this answer says
  // (a RedirectError says it anyway).
  const says = redirect || (init.mayHaveSucceeded ?? answer.status >= 500);
  init.message = earlierSendMessage(init.message, { mayHaveSucceeded: says, earlierSend });
  if (earlierSend) init.mayHaveSucceeded = true;
  if (redirect) {
    const location = answer.headers.get('location');
    return new RedirectError({ ...init, location: location === null ? undefined : redact.text(location) });
  }
  const portalCode = parsePortalCode(envelope.errorCode);
  if (portalCode !== undefined) {
    const entry = Object.hasOwn(PORTAL_ERROR_CODES, portalCode) ? PORTAL_ERROR_CODES[portalCode] : undefined;
    return new PortalError({ ...init, portalCode, portalMessage: entry?.description });
  }
  if (envelope.errorCode === 'UNAUTHORIZED') return new UnauthorizedError(init);
  if (envelope.errorCode === 'FORBIDDEN') return new ForbiddenError(init);
  if (envelope.errorCode === 'INVALID_HASH_ID') return new InvalidHashIdError(init);
  if (answer.status === 429 && !definitive) {
    return new RateLimitError({ ...init, retryAfter: parseRetryAfter(answer.headers.get('retry-after')) });
  }
  if (answer.status >= 500 && !definitive) return new ServerError(init);
  if (answer.status === 400) return new BadRequestError(init);
  if (answer.status === 401 && envelope.errorCode === undefined) return new UnauthorizedError(init);
  return new ApiError(init);
};

/** The `error_code`s that are the service's definitive refusal: it did not act, and sending again changes nothing. */
const DEFINITIVE_CODE = /^(?:UNAUTHORIZED|FORBIDDEN|INVALID_HASH_ID|PORTAL_ERROR_\d{1,16})$/;

/** Whether a body is the service's error envelope (`success: false`) with a refusal code. */
function isDefinitiveRefusal(json: unknown, errorCode: string | undefined): boolean {
  return (
    errorCode !== undefined &&
    DEFINITIVE_CODE.test(errorCode) &&
    (json as { success?: unknown } | undefined)?.success === false
  );
}

/**
 * The typed error of an answer that is not the call's success answer: the one place where an answer becomes an error.
 * A 2xx that is not a success answer says the service may well have acted (`mayHaveSucceeded: true`).
 */
export function answerError(answer: AnswerInfo, earlierSend = false): ApiError {
  const ok = answer.status >= 200 && answer.status < 300 && !answer.redirected;
  const json = answer.json as { success?: unknown } | undefined;
  if (!ok || json?.success === false) return mapErrorAnswer(answer, earlierSend);
  const redact = answer.redact ?? asIs;
  if (answer.overLimit !== undefined || answer.json === undefined) return unreadableAnswer(answer, redact);
  return new ApiError({
    status: answer.status,
    message: `The service answered HTTP ${answer.status} with a body that is not a success answer; it may have acted on the request`,
    body: redact.value(answer.json ?? keptBody(answer.bodyText)),
    headers: headersObject(answer.headers, redact),
    request: answer.request,
    mayHaveSucceeded: true,
  });
}

/** A 2xx whose body is not JSON, or went past `maxResponseBytes`: the service acted, and its answer cannot be read. */
function unreadableAnswer(answer: AnswerInfo, redact: Redactor): UnexpectedResponseError {
  const contentType = answer.headers.get('content-type') ?? undefined;
  const { status, overLimit, bodyBytes } = answer;
  const text = excerpt(answer.bodyText);
  const what =
    overLimit !== undefined
      ? `a body larger than maxResponseBytes (${overLimit} bytes); it may have acted on the request. Raise maxResponseBytes (a client or call option) to read it whole`
      : bodyBytes === 0
        ? 'an empty body, not a success answer; it may have acted on the request'
        : `a body that is not JSON (${contentType ?? 'no content type'}, ${bodyBytes} bytes): ${text}; it may have acted on the request`;
  return new UnexpectedResponseError({
    status,
    message: redact.text(`The service answered HTTP ${status} with ${what}`),
    body: redact.value(keptBody(answer.bodyText)),
    headers: headersObject(answer.headers, redact),
    request: answer.request,
    reason: overLimit === undefined ? 'not-json' : 'too-large',
    contentType: contentType === undefined ? undefined : redact.text(contentType),
    bodyBytes,
  });
}
