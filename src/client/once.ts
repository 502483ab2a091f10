import { type ApiError, UnexpectedResponseError } from '../errors/api-error.js';
import { isAlreadyGenerated } from '../errors/portal-code.js';
import { requestIdFrom } from '../errors/request-id.js';
import { AbortedAfterSendError, failedAfterEarlierSend, mayHaveSucceeded } from '../errors/transport-errors.js';
import { abortableDelay } from '../internal/abort.js';
import { MAX_TIMER_MS } from '../internal/timers.js';
import type { EwayBillModel } from '../model/schemas.js';
import { checkRequestOptions, EARLIER_SEND, MAY_ALREADY_EXIST, type RequestOptions } from './options.js';
import {
  attemptsOf,
  type EwayBillResult,
  type EwayBillResultFields,
  metaOf,
  type ResponseMeta,
  withMeta,
} from './results.js';

/** The client surface {@link createEwayBillOnce} uses: a `ServiceClient`, or anything with its `createEwayBill`. */
export interface EwayBillCreator {
  createEwayBill(docHashId: string, model: EwayBillModel, options?: RequestOptions): Promise<EwayBillResult>;
}

/** How {@link createEwayBillOnce} got to a generated e-way bill. */
export type EwayBillOnceOutcome =
  /**
   * The first request generated it. Its answer may have been a 2xx that could not be read (longer than
   * `maxResponseBytes`, not JSON): then `recovered` is true and `recoveredFrom` is that `UnexpectedResponseError`.
   */
  | 'generated'
  /**
   * The first request failed without certainty (`mayHaveSucceeded`) and the resend was answered with success (a 2xx
   * success answer, or a 2xx that could not be read: then `lastResponse` is its, and the number is not known). This
   * says what the resend's answer was, not that the first request failed: a service still working on the first
   * request when the resend arrived could have generated two bills (which `resendDelayMs` makes unlikely), and a
   * service that refuses duplicates answers 604 instead (`'already-generated'`).
   */
  | 'generated-on-resend'
  /** The portal answered 604 "already generated" after an uncertain attempt: that attempt had generated it. */
  | 'already-generated';

/** The result of {@link createEwayBillOnce}: the bill exists, and how that is known. */
export interface EwayBillOnceResult extends Omit<EwayBillResultFields, 'outcome'> {
  /** How the bill came to exist. */
  readonly outcome: EwayBillOnceOutcome;
  /** True when the first request of this call (or, with `mayAlreadyExist`, an earlier one) did not give a clean answer. */
  readonly recovered: boolean;
  /** The uncertain error that was recovered from; `undefined` for a plain `'generated'`. */
  readonly recoveredFrom: Error | undefined;
  /** With a journal: `true` when the journal knew the bill and no request was made (then `recovered` is `true`). */
  readonly fromJournal?: true;
  /**
   * The status, headers and request id of the answer the result was made from (for `'already-generated'`, the 604's);
   * `undefined` when the journal answered (`fromJournal`): test `fromJournal` first. Not enumerable.
   */
  readonly lastResponse: ResponseMeta | undefined;
}

/** Options of {@link createEwayBillOnce}: those of `createEwayBill`, without `retryWhenMaybeSent` (it resends itself). */
export interface EwayBillOnceOptions extends Omit<RequestOptions, 'retryWhenMaybeSent'> {
  /**
   * An earlier attempt, outside this call (a crashed run, a batch that was aborted while the request was in flight),
   * may have generated the bill. A 604 "already generated" on the first request is then success (`'already-generated'`)
   * instead of a `PortalError`. Leave it off otherwise: a 604 then means someone else generated the bill, which you
   * want to hear about.
   * @default false
   */
  mayAlreadyExist?: boolean | undefined;
  /**
   * Milliseconds to wait before the resend, after a first request that may have reached the service: a service still
   * working on the first request (a slow portal) then has time to finish it, so the resend meets its bill (604)
   * instead of racing it. The wait is cancelled by `signal`.
   * @default 5000
   */
  resendDelayMs?: number | undefined;
}

/**
 * An internal option of {@link createEwayBillOnce} (a symbol a partner's code cannot spell): never resend, so an
 * uncertain first failure is the call's error as it is. `createEwayBills` with `recover: false` passes it.
 */
export const NO_RESEND: unique symbol = Symbol('invoicing-service-sdk.noResend');

/** The default of {@link EwayBillOnceOptions.resendDelayMs}. */
export const DEFAULT_RESEND_DELAY_MS = 5000;

/** Set (true) on a client with a journal: its `createEwayBill` waits out an uncertain earlier request by itself. */
export const JOURNALED: unique symbol = Symbol.for('invoicing-service-sdk.journaled');

function checkOnceOptions(options: unknown): EwayBillOnceOptions {
  const checked = checkRequestOptions(options) as EwayBillOnceOptions & { retryWhenMaybeSent?: unknown };
  if (checked.retryWhenMaybeSent !== undefined) {
    throw new TypeError(
      'createEwayBillOnce: options.retryWhenMaybeSent is not accepted; this function already sends once more, safely, when the first request may have succeeded',
    );
  }
  if (checked.mayAlreadyExist !== undefined && typeof checked.mayAlreadyExist !== 'boolean') {
    throw new TypeError(`options.mayAlreadyExist must be a boolean; got ${typeof checked.mayAlreadyExist}`);
  }
  const delay = checked.resendDelayMs;
  if (
    delay !== undefined &&
    (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0 || delay > MAX_TIMER_MS)
  ) {
    throw new TypeError(
      `options.resendDelayMs must be a number of milliseconds from 0 to ${MAX_TIMER_MS}; got ${String(delay)}`,
    );
  }
  return checked;
}

/**
 * A result made from an error answer that says the bill exists (a 604, an unreadable 2xx): its `lastResponse` is that
 * answer's, counting `earlier` requests of a first call before it.
 */
function resultOfAnswer(
  answer: ApiError,
  message: string,
  fields: Pick<EwayBillOnceResult, 'outcome' | 'recoveredFrom'>,
  earlier: number,
): EwayBillOnceResult {
  const { status, headers } = answer;
  const attempts = earlier + attemptsOf(answer);
  const result = { success: true, message, recovered: true, ...fields } as EwayBillOnceResult;
  return withMeta(result, { status, headers, requestId: requestIdFrom(headers), attempts });
}

function alreadyGenerated(docHashId: string, answer: unknown, first: Error | undefined): EwayBillOnceResult {
  const message = `The e-way bill of document ${docHashId} was already generated (portal code 604) by an earlier request`;
  const fields = { outcome: 'already-generated', recoveredFrom: first } as const;
  return resultOfAnswer(answer as ApiError, message, fields, first ? attemptsOf(first) : 0);
}

/**
 * A 2xx answer to the first request that could not be read (`UnexpectedResponseError`): the service answers a create
 * with 2xx only on success (spec: "HTTP 200 with a SuccessResponseEwayBill body"), so the bill was generated. A resend
 * would only meet it (604): none is sent. Its number, in the unread body, is not known.
 */
function isUnreadableSuccess(error: unknown): error is UnexpectedResponseError {
  return error instanceof UnexpectedResponseError && error.status >= 200 && error.status < 300;
}

/**
 * The result of an unreadable 2xx: to the first request (`first` undefined: `'generated'`, recovered from that error),
 * or to the resend (`'generated-on-resend'`, recovered from the first request's error, both calls' requests counted).
 */
function generatedUnreadable(docHashId: string, error: UnexpectedResponseError, first?: Error): EwayBillOnceResult {
  const message = `The e-way bill of document ${docHashId} was generated: the service answered ${error.status}${first ? ' to the resend' : ''}, but its answer could not be read (${error.reason}), so the bill's number is not known here`;
  const outcome = first ? 'generated-on-resend' : 'generated';
  return resultOfAnswer(error, message, { outcome, recoveredFrom: first ?? error }, first ? attemptsOf(first) : 0);
}

/**
 * A result of the client with the once-fields added; its `lastResponse` kept, counting `earlier` requests before it
 * (`undefined` from the journal).
 */
function onceResult(
  result: EwayBillResult,
  fields: Pick<EwayBillOnceResult, 'outcome' | 'recovered' | 'recoveredFrom'>,
  earlier = 0,
): EwayBillOnceResult {
  const meta = metaOf(result);
  // A result from the journal has none (`undefined`): it says so the same way.
  const counted = meta && Object.freeze({ ...meta, attempts: meta.attempts + earlier });
  return withMeta({ ...result, ...fields } as EwayBillOnceResult, counted);
}

/**
 * Creates an e-way bill at most once, recovering from a lost answer: the README's recipe as one tested function.
 *
 * When the request fails in a way after which the bill may exist (`mayHaveSucceeded`: a timeout or a connection cut
 * after sending, a 5xx), it waits `resendDelayMs` (5 s by default), then sends the same request once more. If the
 * first request had generated the bill, the portal refuses the second with code 604 ("already generated"), which is
 * then success (`outcome: 'already-generated'`); a success answer to the resend is `'generated-on-resend'`.
 *
 * A 2xx answer that cannot be read (an `UnexpectedResponseError`: longer than `maxResponseBytes`, not JSON) is the
 * service's success: the bill was generated, and no resend is sent (`outcome: 'generated'`, `recovered: true`,
 * `recoveredFrom` that error; its number is not known). Such an answer to the resend is a success likewise
 * (`'generated-on-resend'`, `recoveredFrom` the first request's error). `lastResponse.attempts` counts the requests of
 * both calls.
 *
 * At most two requests that the service may act on. The client's own retries of answers after which the service
 * certainly did not act (a 429, a connection refused before sending) still apply to each of the two, so a service
 * that answers 429 can see more POSTs; it did not act on those.
 *
 * Once the first request may have reached the service, every outcome says so: if the resend fails in any way (a 429,
 * a refused connection, an abort before it), the error has `mayHaveSucceeded: true`.
 *
 * @throws the first request's error when it certainly did not succeed (`ValidationError`, `PortalError`, ...), or
 *   when the caller aborted it (`AbortedAfterSendError` after a possible send); the resend's error otherwise, with
 *   `mayHaveSucceeded: true`; a `TypeError` for bad options; an `AbortError` when `options.signal` aborts before
 *   anything was sent.
 * @example
 * const { outcome } = await createEwayBillOnce(client, invoice.hash_id, model);
 * if (outcome !== 'generated') log.info('recovered after a lost answer', { outcome });
 */
export async function createEwayBillOnce(
  client: EwayBillCreator,
  docHashId: string,
  model: EwayBillModel,
  options?: EwayBillOnceOptions,
): Promise<EwayBillOnceResult> {
  if (typeof (client as Partial<EwayBillCreator> | null)?.createEwayBill !== 'function') {
    throw new TypeError('createEwayBillOnce: client must be a ServiceClient');
  }
  const {
    mayAlreadyExist,
    resendDelayMs,
    [NO_RESEND]: noResend,
    ...rest
  } = checkOnceOptions(options) as EwayBillOnceOptions & { [NO_RESEND]?: boolean };
  // A client with a journal is told of `mayAlreadyExist` (an internal option): its journal records a 604 as the bill.
  const callOptions = {
    ...rest,
    retryWhenMaybeSent: false,
    [MAY_ALREADY_EXIST]: mayAlreadyExist === true,
  } as RequestOptions;
  // maxQueueWait bounds the resend's wait too: what is left of it after the first call.
  const startedAt = Date.now();
  let first: Error;
  try {
    const result = await client.createEwayBill(docHashId, model, callOptions);
    // With a journal, an earlier attempt (perhaps of a crashed process) may have made the bill: the result says so.
    const recovered = result.outcome === 'already-generated' || result.fromJournal === true;
    return onceResult(result, { outcome: result.outcome ?? 'generated', recovered, recoveredFrom: undefined });
  } catch (error) {
    if (mayAlreadyExist === true && isAlreadyGenerated(error)) return alreadyGenerated(docHashId, error, undefined);
    // The caller's abort is an answer too: no resend after it.
    if (!mayHaveSucceeded(error) || error instanceof AbortedAfterSendError || noResend === true) throw error;
    if (isUnreadableSuccess(error)) return generatedUnreadable(docHashId, error);
    first = error as Error;
  }
  const request = (first as { request?: { method: string; url: string } }).request;
  try {
    // A client with a journal waits by itself until the first request can no longer be in flight (its timeout and
    // DEFAULT_RESEND_DELAY_MS), so only a delay the caller asked for is added.
    const journaled = (client as { readonly [JOURNALED]?: boolean })[JOURNALED] === true;
    await abortableDelay(resendDelayMs ?? (journaled ? 0 : DEFAULT_RESEND_DELAY_MS), callOptions.signal);
    // The resend is a call after an earlier request that may have reached the service: the client builds its errors
    // saying so (an internal option), a 429 or a refused connection included. maxQueueWait bounds the resend's wait
    // too: what is left of it after the first call.
    const resend = { ...callOptions, [EARLIER_SEND]: true } as RequestOptions;
    resend.maxQueueWait = rest.maxQueueWait && Math.max(0, startedAt + rest.maxQueueWait - Date.now());
    const result = await client.createEwayBill(docHashId, model, resend);
    const outcome = result.outcome === 'already-generated' ? 'already-generated' : 'generated-on-resend';
    return onceResult(result, { outcome, recovered: true, recoveredFrom: first }, attemptsOf(first));
  } catch (second) {
    if (isAlreadyGenerated(second)) return alreadyGenerated(docHashId, second, first);
    // The resend's 2xx is the service's success as much as the first request's would have been.
    if (isUnreadableSuccess(second)) return generatedUnreadable(docHashId, second, first);
    // What the client built knowing of the first request is thrown as it is; what it could not (the wait aborted, a
    // client that is not this SDK's) is made anew once, saying the bill may exist.
    throw failedAfterEarlierSend(second, request);
  }
}
