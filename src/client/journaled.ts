// `new ServiceClient({ journal })` (issue 31, items 2 and 3): the claim, decide, intent and outcome flow around one
// e-way bill request, `pendingDocuments()` and `recover()`. Imported on the first call of a client with a journal
// (service-client.ts, `journaledPart`), never with the SDK: a client without a journal loads none of this.
import type { AnswerInfo } from '../errors/answer.js';
import { JournalClaimLostError, JournalError } from '../errors/journal-error.js';
import { answerError } from '../errors/map-answer.js';
import { isAlreadyGenerated } from '../errors/portal-error.js';
import { mayHaveSucceeded } from '../errors/transport-errors.js';
import { abortableDelay } from '../internal/abort.js';
import { outcomeOfError, planSend } from '../journal/decide.js';
import type { Journal, JournalClaim, JournalDocument, JournalRecord } from '../journal/journal.js';
import type { AttemptJournal } from './call.js';
import type { Credential } from './credentials.js';
import type { Logger } from './events.js';
import type { CallOptions } from './options.js';
import type { EwayBillResult } from './results.js';

// Nothing here imports a module of the client's first chunk (once.ts, options.ts, internal/hex.ts): a bundler that
// splits code would cut that chunk in two for this one, and the first load grows by the lost compression (+1.4 KiB
// gzipped, measured). The client hands over what it needs (`JournalClient`).

/** How long an attempt with `timeout: false` is taken to be in flight at most. */
const NO_TIMEOUT_IN_FLIGHT_MS = 10 * 60_000;
/**
 * What a claim's lease adds to an attempt's in-flight time (the journal's own calls after the answer). Short on purpose:
 * a killed holder blocks the document's other callers until its lease ends; and a lease that ends early is safe, as the
 * next owner waits out the recorded in-flight window and the holder's next intent is refused (`JournalClaimLostError`).
 */
const LEASE_MARGIN_MS = 1_000;
/** The longest single wait for another owner's claim before asking again. */
const CLAIM_POLL_MS = 100;

/**
 * When this process's own uncertain attempts ended (`performance.now()`), by attempt id: an attempt that failed early
 * (a connection reset after sending) can no longer be in flight `resendDelayMs` (once.ts `DEFAULT_RESEND_DELAY_MS`)
 * after its end, as `createEwayBillOnce` has always assumed, which is sooner than the recorded `inFlightUntil` (its
 * start + timeout + the margin). Another process knows only the record, and waits for it. Bounded: entries leave once used or after a while.
 */
const endedAttempts = new Map<string, number>();
const ENDED_KEPT = 10_000;

/** One `createEwayBill` with a journal, as the client hands it over. */
export interface JournaledCall {
  readonly journal: Journal;
  readonly baseUrl: string;
  readonly docHashId: string;
  /** The body as it will be sent (checked, or recorded by an earlier attempt for `recover()`). */
  readonly body: string;
  /** The call's timeout per attempt. */
  readonly timeout: number | false;
  readonly signal: AbortSignal | undefined;
  readonly retryRefused: boolean;
  readonly logger: Logger | undefined;
  /** What an attempt may stay in flight after it ended: `createEwayBillOnce`'s `DEFAULT_RESEND_DELAY_MS`. */
  readonly resendDelayMs: number;
  /** A request outside the journal may have made the bill (`createEwayBillOnce`'s `mayAlreadyExist`): a 604 is the bill. */
  readonly mayAlreadyExist: boolean;
  /** Sends `body` once through the client's retry loop, with the per-attempt hooks. */
  readonly send: (body: string, hooks: AttemptJournal) => Promise<EwayBillResult>;
}

/** SHA-256 of text, lower-case hex: `journalBodyHash` with Web Crypto (no node:crypto in the client). */
async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** `journalKeyHash` with Web Crypto: the first 12 hex digits of the SHA-256 of the trimmed key. */
export async function keyHashOf(key: string): Promise<string> {
  return (await sha256Hex(key.trim())).slice(0, 12);
}

/** Takes the document's claim, waiting (abortably, bounded) while another call or process holds it. */
async function claimDocument(
  call: JournaledCall,
  document: JournalDocument,
  owner: string,
  leaseMs: number,
): Promise<JournalClaim & { claimed: true }> {
  const { journal, signal } = call;
  let claim = await journal.claim(document, owner, leaseMs);
  const deadline = claim.now + 10 * leaseMs;
  for (let turn = 0; !claim.claimed; turn++) {
    if (claim.now > deadline || turn > 10_000_000) {
      throw new JournalError(
        `Document ${document.docHashId}: another call or process held its journal claim for over ${Math.round((10 * leaseMs) / 1000)} s; nothing was sent`,
      );
    }
    await abortableDelay(Math.min(Math.max(claim.expiresAt - claim.now, 1), CLAIM_POLL_MS), signal);
    claim = await journal.claim(document, owner, leaseMs);
  }
  return claim;
}

/** The result recorded for a generated document, returned without a request. */
function fromJournal(record: JournalRecord): EwayBillResult {
  const { outcome = 'generated', message = '', ewayBillNumber } = record.result ?? {};
  const result = { success: true, message, outcome, fromJournal: true } as const;
  // No request, so no answer: `lastResponse` is there, not enumerable as on every result, and `undefined`.
  return Object.defineProperty(ewayBillNumber ? { ...result, ewayBillNumber } : result, 'lastResponse', {
    value: undefined,
    enumerable: false,
    configurable: true,
  }) as EwayBillResult;
}

/** The recorded refusal, rebuilt by the error mapping from its recorded answer: the same class, codes and category. */
function refusalOf(record: JournalRecord): Error {
  const error = (record.error ?? {}) as {
    status?: number;
    headers?: Record<string, string>;
    body?: unknown;
    request?: AnswerInfo['request'];
  };
  return answerError({
    status: typeof error.status === 'number' ? error.status : 400,
    headers: new Headers(error.headers ?? {}),
    bodyText: '',
    bodyBytes: 0,
    json: error.body,
    request: error.request ?? { method: 'POST', url: `${record.baseUrl}/v2/ewaybill/${record.docHashId}` },
  });
}

/** `createEwayBill` with a journal: claim, decide, wait out an earlier attempt, record intent and outcome. */
export async function createJournaled(call: JournaledCall): Promise<EwayBillResult> {
  const { journal, logger } = call;
  const document: JournalDocument = { baseUrl: call.baseUrl, docHashId: call.docHashId };
  const bodyHash = await sha256Hex(call.body);
  const owner = crypto.randomUUID();
  const inFlightMs = (call.timeout === false ? NO_TIMEOUT_IN_FLIGHT_MS : call.timeout) + call.resendDelayMs;
  const leaseMs = inFlightMs + LEASE_MARGIN_MS;
  let claim = await claimDocument(call, document, owner, leaseMs);
  try {
    // Bounded: at most the recorded body of an edited document, then the new one.
    for (let turn = 0; ; turn++) {
      const plan = planSend(claim.record, bodyHash, claim.now, { retryRefused: call.retryRefused });
      if (plan.kind === 'generated') return fromJournal(plan.record);
      if (plan.kind === 'refused') throw refusalOf(plan.record);
      const ended = claim.record ? endedAttempts.get(claim.record.attempt) : undefined;
      const waitMs =
        ended === undefined
          ? plan.waitMs
          : Math.min(plan.waitMs, Math.max(0, ended + call.resendDelayMs - performance.now()));
      if (waitMs > 0) {
        // An earlier attempt (of this process or another, perhaps crashed) may still be in flight at the service.
        if (waitMs + leaseMs > claim.expiresAt - claim.now) {
          claim = await claimDocument(call, document, owner, waitMs + leaseMs);
        }
        await abortableDelay(waitMs, call.signal);
      }
      const recorded = plan.body === 'recorded' && turn === 0 ? (claim.record as JournalRecord) : undefined;
      const body = recorded?.body ?? call.body;
      const hash = recorded ? recorded.bodyHash : bodyHash;
      try {
        const maybeMade = plan.mayAlreadyExist || call.mayAlreadyExist;
        const result = await sendRecorded(call, document, owner, leaseMs, inFlightMs, body, hash, maybeMade);
        if (!recorded) return result;
        logger?.warn(
          `invoicing-service-sdk: the e-way bill of document ${call.docHashId} was made from an earlier body of the document, sent before it was edited`,
          { docHashId: call.docHashId },
        );
        return { ...result, bodyChanged: true } as EwayBillResult;
      } catch (error) {
        // The earlier body was refused for good: plan again, with the new body.
        if (!recorded || mayHaveSucceeded(error) || (error as Error).name === 'AbortError') throw error;
        claim = await claimDocument(call, document, owner, leaseMs);
        if (claim.record?.status !== 'refused') throw error;
      }
    }
  } finally {
    await journal.release(document, owner).catch((error: unknown) => {
      logger?.warn(`invoicing-service-sdk: the journal could not release document ${call.docHashId}'s claim`, {
        error: String(error),
      });
    });
  }
}

/** Sends one body through the retry loop with an intent before each attempt and its outcome after. */
async function sendRecorded(
  call: JournaledCall,
  document: JournalDocument,
  owner: string,
  leaseMs: number,
  inFlightMs: number,
  body: string,
  bodyHash: string,
  mayAlreadyExist: boolean,
): Promise<EwayBillResult> {
  const { journal, logger } = call;
  /** Whether a request of this document may have reached the service: earlier, or an attempt of this call. */
  let maybeSent = mayAlreadyExist;
  /** The intent of the attempt under way, until its outcome is known; then, for a success, `answered`. */
  let intent: JournalRecord | undefined;
  let answered: string | undefined;
  const record = async (attempt: string, outcome: Parameters<Journal['recordOutcome']>[2]) => {
    try {
      await journal.recordOutcome(document, attempt, outcome);
    } catch (error) {
      // The record stays 'sent-maybe': a later call recovers it (its 604 then means 'already-generated').
      logger?.warn(`invoicing-service-sdk: the journal could not record document ${call.docHashId}'s outcome`, {
        error: String(error),
      });
    }
  };
  const hooks: AttemptJournal = {
    before: async (credential: Credential) => {
      intent = undefined;
      const renewed = await journal.claim(document, owner, leaseMs);
      if (!renewed.claimed) {
        throw new JournalClaimLostError(
          `Document ${document.docHashId}: its journal claim ran out and another owner took it; nothing was sent`,
        );
      }
      const keyHash = await keyHashOf(credential.key);
      intent = await journal.recordIntent({ ...document, owner, body, bodyHash, keyHash, inFlightMs });
    },
    after: async (settled: unknown) => {
      const attempt = intent?.attempt;
      intent = undefined;
      if (attempt === undefined) return;
      if (!(settled instanceof Error)) {
        answered = attempt;
        return;
      }
      const outcome = outcomeOfError(settled, maybeSent);
      if (outcome === undefined) {
        maybeSent = true;
        if (endedAttempts.size >= ENDED_KEPT) endedAttempts.delete(endedAttempts.keys().next().value as string);
        endedAttempts.set(attempt, performance.now());
      } else await record(attempt, outcome);
    },
  };
  try {
    const result = await call.send(body, hooks);
    const { message, ewayBillNumber } = result;
    if (answered !== undefined) {
      await record(answered, {
        status: 'generated',
        result: ewayBillNumber ? { outcome: 'generated', message, ewayBillNumber } : { outcome: 'generated', message },
      });
    }
    return Object.defineProperty({ ...result, outcome: 'generated' }, 'lastResponse', {
      value: result.lastResponse,
      enumerable: false,
    }) as EwayBillResult;
  } catch (error) {
    if (!(maybeSent && isAlreadyGenerated(error))) throw error;
    const message = `The e-way bill of document ${document.docHashId} was already generated (portal code 604) by an earlier request`;
    const { status, headers } = error as { status: number; headers: Record<string, string> };
    const result = { success: true, message, outcome: 'already-generated' } as const;
    return Object.defineProperty(result, 'lastResponse', {
      value: { status, headers, requestId: undefined, attempts: 1 },
      enumerable: false,
    }) as unknown as EwayBillResult;
  }
}

/** A document whose outcome is unknown: its request may have been sent, and nothing says what came of it. */
export interface PendingDocument {
  readonly docHashId: string;
  /** When its latest request was recorded as about to leave (ms since the epoch, on the journal's clock). */
  readonly sentAt: number;
  /** Until when that request may still be in flight at the service. */
  readonly inFlightUntil: number;
  /** SHA-256 (hex) of the body sent. */
  readonly bodyHash: string;
  /** The body sent (JSON): business data, no secrets. */
  readonly body: string | undefined;
}

/** The pending records of a base URL, of the key hash `keyHash` (or of no recorded key) when it is known. */
export async function pendingRecords(
  journal: Journal,
  baseUrl: string,
  keyHash: string | undefined,
): Promise<JournalRecord[]> {
  const records = await journal.pending({ baseUrl });
  return records.filter(
    (record) => keyHash === undefined || record.keyHash === undefined || record.keyHash === keyHash,
  );
}

/** {@link pendingRecords} as the client lists them. */
export function pendingOf(records: readonly JournalRecord[]): PendingDocument[] {
  return records.map(({ docHashId, sentAt, inFlightUntil, bodyHash, body }) => ({
    docHashId,
    sentAt,
    inFlightUntil,
    bodyHash,
    body,
  }));
}

/** What `recover()` says of one document. */
export type RecoverResult =
  | { readonly status: 'fulfilled'; readonly docHashId: string; readonly value: EwayBillResult }
  | {
      readonly status: 'rejected';
      readonly docHashId: string;
      readonly error: Error;
      /** Whether the bill may exist despite the error: the document stays pending, `recover()` again later. */
      readonly mayHaveSucceeded: boolean;
    };

/** Resolves each pending record from its recorded body, one after the other: one result per document. */
export async function recoverAll(
  records: readonly JournalRecord[],
  create: (docHashId: string, body: string) => Promise<EwayBillResult>,
): Promise<RecoverResult[]> {
  const results: RecoverResult[] = [];
  for (const { docHashId, body } of records) {
    try {
      if (body === undefined) throw new JournalError(`Document ${docHashId}: the journal holds no body to recover it`);
      results.push({ status: 'fulfilled', docHashId, value: await create(docHashId, body) });
    } catch (error) {
      const failed = error instanceof Error ? error : new Error(String(error));
      results.push({ status: 'rejected', docHashId, error: failed, mayHaveSucceeded: mayHaveSucceeded(error) });
    }
  }
  return results;
}

/** What the journal's flow needs of its client (service-client.ts, `#journaled`). */
export interface JournalClient {
  readonly journal: Journal;
  readonly baseUrl: string;
  readonly logger: Logger | undefined;
  /** once.ts `DEFAULT_RESEND_DELAY_MS` (see {@link JournaledCall.resendDelayMs}). */
  readonly resendDelayMs: number;
  /** The client's key when it is fixed (only its records, and those of no recorded key, are pending for it). */
  readonly key: string | undefined;
  /** Sends one body of a document once through the client's transport, with the per-attempt hooks. */
  readonly send: (
    docHashId: string,
    body: string,
    options: CallOptions,
    hooks: AttemptJournal,
  ) => Promise<EwayBillResult>;
}

/** A client's journaled calls: `createEwayBill`, `pendingDocuments()` and `recover()` of a client with a journal. */
export function journaledClient(client: JournalClient) {
  const { journal, baseUrl, logger, key, resendDelayMs } = client;
  const create = (docHashId: string, body: string, options: CallOptions) =>
    createJournaled({
      journal,
      baseUrl,
      docHashId,
      body,
      timeout: options.timeout,
      signal: options.signal,
      retryRefused: options.retryRefused,
      logger,
      resendDelayMs,
      mayAlreadyExist: options.mayAlreadyExist,
      send: (sent, hooks) => client.send(docHashId, sent, options, hooks),
    });
  const records = async () => pendingRecords(journal, baseUrl, key && (await keyHashOf(key)));
  return {
    create,
    pendingDocuments: async () => pendingOf(await records()),
    recover: async (options: CallOptions) =>
      recoverAll(await records(), (docHashId, body) => create(docHashId, body, options)),
  };
}
