/**
 * The journal of e-way bill requests: what was sent, remembered across crashes, so a document is never sent twice
 * blindly. The interface (for a journal on your own database) and the file journal of one process; the Redis journal
 * of many processes is in `invoicing-service-sdk/redis`.
 *
 * @module invoicing-service-sdk/journal
 */

// invoicing-service-sdk/journal: every public name of the subpath is listed here.
export { JournalClaimLostError, JournalError, JournalLockedError } from '../errors/journal-error.js';
export type { FileJournal, FileJournalOptions } from './file-journal.js';
export { createFileJournal } from './file-journal.js';
export { journalBodyHash, journalKeyHash } from './hashes.js';
export type {
  Journal,
  JournalClaim,
  JournalCompaction,
  JournalDocument,
  JournalIntent,
  JournalOutcome,
  JournalRecord,
  JournalResult,
  JournalStatus,
} from './journal.js';
export { DEFAULT_JOURNAL_MAX_AGE_MS } from './journal.js';
