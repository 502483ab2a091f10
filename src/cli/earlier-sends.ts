// What a run knows beyond its journal: a document an older version's ledger (`<output>.sent`, 0.1's `.inflight`) or
// an uncertain results line names as perhaps sent. The journal is where the client learns that an earlier request may
// have made the bill, so that its 604 "already generated" is recorded as the bill (`'generated'`, outcome
// `'already-generated'`), as for the journal's own `'sent-maybe'` records. Without this view such a document's 604 was
// recorded `'not-sent'` (no record), and the journal never learnt its bill.
import type { Journal, JournalClaim, JournalDocument, JournalRecord } from '../journal/journal.js';

/**
 * The run's journal as its client sees it (the client of one base URL): `claim` of a document in `earlier` that the journal has no
 * record of returns an unwritten `'sent-maybe'` record with no body and no time left in flight (the run waited out an
 * older version's requests before the batch), so the client takes a 604 as the bill and records it. Every record the
 * journal holds, and every other call, is the journal's own.
 */
export function withEarlierSends(journal: Journal, earlier: ReadonlySet<string>): Journal {
  return {
    claim: async (document, owner, leaseMs) => {
      const claim = await journal.claim(document, owner, leaseMs);
      if (claim.record !== undefined || !earlier.has(document.docHashId)) return claim;
      return { ...claim, record: earlierSend(document, claim.now) } as JournalClaim;
    },
    recordIntent: (intent) => journal.recordIntent(intent),
    recordOutcome: (document, attempt, outcome) => journal.recordOutcome(document, attempt, outcome),
    release: (document, owner) => journal.release(document, owner),
    get: (document) => journal.get(document),
    pending: (filter) => journal.pending(filter),
    compact: (options) => journal.compact(options),
    close: () => journal.close(),
  };
}

/** A request sent before this journal, whose outcome nobody recorded: never written, only shown to the client. */
function earlierSend({ baseUrl, docHashId }: JournalDocument, now: number): JournalRecord {
  return {
    baseUrl,
    docHashId,
    status: 'sent-maybe',
    bodyHash: '',
    body: undefined,
    keyHash: undefined,
    attempt: 'earlier-version',
    sentAt: now,
    inFlightUntil: now,
    at: now,
    result: undefined,
    error: undefined,
  };
}
