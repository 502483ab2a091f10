import { isAlreadyGenerated } from '../errors/portal-error.js';
import { mayHaveSucceeded } from '../errors/transport-errors.js';
import type { EwayBillModel } from '../model/schemas.js';
import { checkRequestOptions, type RequestOptions } from './options.js';
import type { EwayBillResult } from './service-client.js';

/** The client surface {@link createEwayBillOnce} uses: a `ServiceClient`, or anything with its `createEwayBill`. */
export interface EwayBillCreator {
  createEwayBill(docHashId: string, model: EwayBillModel, options?: RequestOptions): Promise<EwayBillResult>;
}

/** How {@link createEwayBillOnce} got to a generated e-way bill. */
export type EwayBillOnceOutcome =
  /** The first request generated it. */
  | 'generated'
  /** The first request failed without certainty (`mayHaveSucceeded`); the one resend generated it. */
  | 'generated-on-resend'
  /** The portal answered 604 "already generated" after an uncertain attempt: that attempt had generated it. */
  | 'already-generated';

/** The result of {@link createEwayBillOnce}: the bill exists, and how that is known. */
export interface EwayBillOnceResult extends EwayBillResult {
  /** How the bill came to exist. */
  readonly outcome: EwayBillOnceOutcome;
  /** True when the first request of this call (or, with `mayAlreadyExist`, an earlier one) did not give a clean answer. */
  readonly recovered: boolean;
  /** The uncertain error that was recovered from; `undefined` for a plain `'generated'`. */
  readonly recoveredFrom: Error | undefined;
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
}

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
  return checked;
}

function alreadyGenerated(docHashId: string, recoveredFrom: Error | undefined): EwayBillOnceResult {
  const message = `The e-way bill of document ${docHashId} was already generated (portal code 604) by an earlier request`;
  return { success: true, message, outcome: 'already-generated', recovered: true, recoveredFrom };
}

/**
 * Creates an e-way bill at most once, recovering from a lost answer: the README's recipe as one tested function.
 *
 * When the request fails in a way after which the bill may exist (`mayHaveSucceeded`: a timeout or a connection cut
 * after sending, a 5xx), it sends the same request exactly once more. If the first request had generated the bill, the
 * portal refuses the second with code 604 ("already generated"), which is then success (`outcome: 'already-generated'`);
 * if the second generates it, the first had not (`'generated-on-resend'`). Never more than two requests, never a loop
 * (the client's own automatic retries, of failures where nothing was sent, still apply to each).
 *
 * @throws the first request's error when it certainly did not succeed (`ValidationError`, `PortalError`, ...);
 *   the second request's error when that one fails too (if it is again uncertain, `mayHaveSucceeded(error)` says so);
 *   a `TypeError` for bad options; an `AbortError` when `options.signal` aborts.
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
  const { mayAlreadyExist, ...rest } = checkOnceOptions(options);
  const callOptions: RequestOptions = { ...rest, retryWhenMaybeSent: false };
  let first: Error;
  try {
    const result = await client.createEwayBill(docHashId, model, callOptions);
    return { ...result, outcome: 'generated', recovered: false, recoveredFrom: undefined };
  } catch (error) {
    if (mayAlreadyExist === true && isAlreadyGenerated(error)) {
      return alreadyGenerated(docHashId, undefined);
    }
    if (!mayHaveSucceeded(error)) throw error;
    first = error as Error;
  }
  try {
    const result = await client.createEwayBill(docHashId, model, callOptions);
    return { ...result, outcome: 'generated-on-resend', recovered: true, recoveredFrom: first };
  } catch (second) {
    if (isAlreadyGenerated(second)) return alreadyGenerated(docHashId, first);
    throw second;
  }
}
