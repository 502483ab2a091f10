// The client's decisions around a journal, as pure functions (issue 31, item 2): what to do with a document given
// its record, and what to record after an error. Kept here, beside the journal's rules, so the client, `recover()`
// and the CLI decide alike; no I/O.
import { isAlreadyGenerated, PortalError } from '../errors/portal-error.js';
import { ServiceError } from '../errors/service-error.js';
import { mayHaveSucceeded } from '../errors/transport-errors.js';
import type { JournalOutcome, JournalRecord } from './journal.js';

/** What to do with a document, given what the journal knows of it. */
export type JournalPlan =
  /** Known as generated: return its recorded result, no request. */
  | { readonly kind: 'generated'; readonly record: JournalRecord }
  /** This very body was refused for good: throw the recorded refusal again, no request. */
  | { readonly kind: 'refused'; readonly record: JournalRecord }
  | {
      readonly kind: 'send';
      /** Wait this long first (on the journal's clock): an earlier attempt may still be in flight at the service. */
      readonly waitMs: number;
      /** An earlier attempt may have generated the bill: a 604 "already generated" then means it did. */
      readonly mayAlreadyExist: boolean;
      /**
       * The body to send: the recorded one when an earlier attempt with another body may have generated the bill
       * (that attempt is resolved first, with its own body; the caller then learns the bill holds the earlier body),
       * else the caller's.
       */
      readonly body: 'recorded' | 'new';
    };

/**
 * Decides what to do with a document before sending `bodyHash`, from the record `claim` returned and the journal's
 * clock `now` at that claim.
 * @example
 * const claim = await journal.claim(doc, owner, leaseMs);
 * const plan = planSend(claim.record, journalBodyHash(body), claim.now);
 */
export function planSend(
  record: JournalRecord | undefined,
  bodyHash: string,
  now: number,
  options: { readonly retryRefused?: boolean | undefined } = {},
): JournalPlan {
  if (record?.status === 'generated') return { kind: 'generated', record };
  if (record?.status === 'refused' && record.bodyHash === bodyHash && options.retryRefused !== true) {
    return { kind: 'refused', record };
  }
  if (record?.status === 'sent-maybe') {
    const waitMs = Math.max(0, record.inFlightUntil - now);
    const body = record.bodyHash === bodyHash || record.body === undefined ? 'new' : 'recorded';
    return { kind: 'send', waitMs, mayAlreadyExist: true, body };
  }
  return { kind: 'send', waitMs: 0, mayAlreadyExist: false, body: 'new' };
}

/**
 * Whether an error is the service's definitive refusal of the body (recorded, and not sent again with this body): a
 * `PortalError` of category `'validation'`, or `'state'` other than 604, or `INVALID_HASH_ID`. Never an `'auth'` or
 * `'retryable'` one, a refused key, a 429: those say nothing about the body.
 */
export function isDefinitiveRefusal(error: unknown): boolean {
  if (mayHaveSucceeded(error)) return false;
  if (error instanceof PortalError) {
    return error.category === 'validation' || (error.category === 'state' && !isAlreadyGenerated(error));
  }
  return (error as { code?: unknown } | null)?.code === 'INVALID_HASH_ID';
}

/**
 * What to record after a send failed with `error`: a 604 after a possible earlier send is the bill (`'generated'`,
 * `'already-generated'`); a definitive refusal is `'refused'` with the error's JSON form; an error after which the
 * request may have reached the service, or that does not say (not an error of the SDK), is `undefined` (the record
 * stays `'sent-maybe'`); an error of the SDK with `mayHaveSucceeded: false` (a refused key, a 429, an `'auth'` or
 * `'retryable'` portal error, a 604 without an earlier send, a refused connection) or an abort before sending is
 * `'not-sent'`: this attempt made no bill.
 */
export function outcomeOfError(error: unknown, mayAlreadyExist: boolean): JournalOutcome | undefined {
  if (isAlreadyGenerated(error) && mayAlreadyExist) {
    const message = error instanceof Error ? error.message : 'already generated';
    return { status: 'generated', result: { outcome: 'already-generated', message } };
  }
  // Only an error that says so is certain: anything else (a custom fetch's own error, say) leaves the record unknown.
  const certain =
    (error instanceof ServiceError && (error as { mayHaveSucceeded?: unknown }).mayHaveSucceeded === false) ||
    (error as { name?: unknown } | null)?.name === 'AbortError';
  if (!certain) return undefined;
  if (isDefinitiveRefusal(error)) {
    const json = (error as { toJSON?: () => Record<string, unknown> }).toJSON?.() ?? { message: String(error) };
    return { status: 'refused', error: json };
  }
  return { status: 'not-sent' };
}
