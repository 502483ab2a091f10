import type { AnswerInfo } from '../errors/answer.js';
import { requestIdFrom } from '../errors/request-id.js';

/** The HTTP facts of the answer a result came from. */
export interface ResponseMeta {
  /** The HTTP status. */
  readonly status: number;
  /** The answer's headers, lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The request id (`x-request-id` or a like header), when the service or its gateway sent one. */
  readonly requestId: string | undefined;
  /**
   * How many requests of this call may have reached the service, this answer's included: every attempt that was
   * answered, whatever its status (a 429 or a 503 that was retried counts), and every attempt that failed after its
   * request may have left (a timeout, a connection reset after sending). Attempts that certainly never left (a
   * refused connection, a DNS failure) are not counted. `1`: the service received the call's request once. More: it
   * was sent again (an idempotent `GET`/`PUT`/`DELETE` after a timeout, a 503 or a rotated key; a 429), so an effect of
   * the request may have happened more than once; pass `idempotent: false` to `request` to never resend after a
   * possible send. On a result of `createEwayBillOnce` after a resend, it counts the requests of both its calls.
   * @example if (doc.lastResponse.attempts > 1) audit.note('PUT sent more than once', doc.lastResponse.requestId);
   */
  readonly attempts: number;
}

/**
 * What `client.request<T>` resolves to: the answer as parsed, with its non-enumerable `lastResponse` when it is an
 * object or an array, also when a `schema` returned it frozen (it is then a frozen copy that has it). A `null`,
 * number, string or boolean answer has none, and a 2xx with an empty body (a 204) resolves `undefined`: declare
 * `T | undefined` for an endpoint that may answer so, and TypeScript asks you to check before reading `lastResponse`.
 * @example
 * const done = await client.request<{ id: string } | undefined>('DELETE', `/v2/doc/${id}`);
 * if (done) audit.note(done.lastResponse.attempts);
 */
export type RequestResult<T> = T extends object ? T & { readonly lastResponse: ResponseMeta } : T;

/** What every successful "create e-way bill" result has, answered by the service or by the journal. */
export interface EwayBillResultFields {
  readonly success: true;
  /** The service's human-readable result message. */
  readonly message: string;
  /**
   * The e-way bill number, when the message holds exactly one 12-digit number (the portal's bill numbers are 12
   * digits); absent otherwise: the spec does not show the success answer's fields, so it is never guessed.
   */
  readonly ewayBillNumber?: string;
  /**
   * With a journal (`ServiceClient`'s `journal` option): how the bill came to exist. `'generated'`: by this call's
   * request (or, with `fromJournal`, by an earlier one); `'already-generated'`: an earlier request, perhaps of a crashed
   * process, made it, which the portal's 604 confirmed. Absent without a journal.
   */
  readonly outcome?: 'generated' | 'already-generated';
  /**
   * With a journal: `true` when the bill was made from an earlier body of the document, sent before the document was
   * edited (and recovered now): the bill does not match the document as it is; amend or cancel it on the portal.
   */
  readonly bodyChanged?: true;
}

/** A successful "create e-way bill" that this call's request was answered for: it has the answer's `lastResponse`. */
export interface EwayBillAnsweredResult extends EwayBillResultFields {
  /** Absent: the service answered this call (see {@link EwayBillJournalResult}). */
  readonly fromJournal?: undefined;
  /**
   * The answer's status, headers and request id. Not enumerable: `JSON.stringify(result)` and spreads show only the
   * answer's own fields.
   */
  readonly lastResponse: ResponseMeta;
}

/**
 * A successful "create e-way bill" answered by the journal (`ServiceClient`'s `journal` option): it knew the bill, and
 * no request was made, so there is no answer and `lastResponse` is `undefined`.
 */
export interface EwayBillJournalResult extends EwayBillResultFields {
  /** The journal knew the bill and no request was made. */
  readonly fromJournal: true;
  /** `undefined`: no request was made, so there is no answer to describe. */
  readonly lastResponse: undefined;
}

/**
 * The answer of a successful "create e-way bill". Without a journal it is always an {@link EwayBillAnsweredResult};
 * with one it may come from the journal (`fromJournal: true`, no `lastResponse`): test `fromJournal` before reading
 * `lastResponse`.
 * @example
 * const bill = await client.createEwayBill(id, model);
 * if (!bill.fromJournal) audit.note(bill.lastResponse.requestId);
 */
export type EwayBillResult = EwayBillAnsweredResult | EwayBillJournalResult;

const TWELVE_DIGITS = /(?<!\d)\d{12}(?!\d)/g;

/** The one 12-digit number in a message, or `undefined` when there is none or more than one. */
export function ewayBillNumberIn(message: string): string | undefined {
  const found = message.match(TWELVE_DIGITS);
  return found?.length === 1 ? found[0] : undefined;
}

/** The metadata of an answer. */
export function responseMeta(answer: AnswerInfo, redact: (text: string) => string): ResponseMeta {
  const headers: Record<string, string> = {};
  for (const [name, value] of answer.headers) headers[name] = redact(value);
  return Object.freeze({
    status: answer.status,
    headers: Object.freeze(headers),
    requestId: requestIdFrom(headers),
    attempts: answer.attempts ?? 1,
  });
}

/**
 * The requests of a failed call that may have reached the service, when more than one (an error's own fields do not
 * say): `createEwayBillOnce` adds them to its resend's. Keyed by the error, which stays as it was built.
 */
const attemptsOfErrors = new WeakMap<object, number>();

/** Notes how many requests of the call that failed with `error` may have reached the service; returns `error`. */
export function noteAttempts(error: unknown, attempts: number): unknown {
  if (attempts > 1 && error instanceof Error) attemptsOfErrors.set(error, attempts);
  return error;
}

/** How many requests of the call that failed with `error` may have reached the service: 1 unless noted. */
export function attemptsOf(error: unknown): number {
  return attemptsOfErrors.get(error as object) ?? 1;
}

/**
 * Gives `result` its `lastResponse`, not enumerable (`undefined` for a result no answer was made for: one from the
 * journal); a value that is not an object is returned as it is. A plain object or array that cannot take it (a
 * `schema` that freezes its output, as zod's `.readonly()` does) is copied, given it, and frozen (or sealed) again, so
 * that `RequestResult<T>` holds for it too; any other such object (a frozen class instance, which a copy would not
 * faithfully be) is returned as it is, without `lastResponse`.
 */
export function withMeta<T>(result: T, meta: ResponseMeta | undefined): T {
  if (typeof result !== 'object' || result === null) return result;
  const extensible = Object.isExtensible(result);
  const target = extensible ? result : plainCopy(result);
  if (!target) return result;
  // Not enumerable. On a copy, fixed too: with the copied properties' own flags, the copy that is made non-extensible
  // again is frozen or sealed as the original was.
  Object.defineProperty(target, 'lastResponse', { value: meta, configurable: extensible });
  return (extensible ? target : Object.preventExtensions(target)) as T;
}

/** An extensible copy of a plain object or array, own properties and prototype kept; `undefined` for other objects. */
function plainCopy(value: object): object | undefined {
  const proto: unknown = Object.getPrototypeOf(value);
  const isArray = Array.isArray(value);
  if (!isArray && proto !== Object.prototype && proto !== null) return undefined;
  const descriptors = Object.getOwnPropertyDescriptors(value) as PropertyDescriptorMap;
  if (isArray) delete descriptors.length;
  return Object.defineProperties(
    isArray ? new Array<unknown>(value.length) : Object.create(proto as object | null),
    descriptors,
  );
}

/** The `lastResponse` of a result, or `undefined`. */
export function metaOf(result: unknown): ResponseMeta | undefined {
  return (result as { lastResponse?: ResponseMeta } | null | undefined)?.lastResponse;
}
