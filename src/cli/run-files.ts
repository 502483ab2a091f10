// The files an `ewaybill create` run keeps beside its results: a lock, so two runs on one output never send a document
// twice, and the helpers that write them so that a crash at any byte leaves a readable state. What was sent is in the
// run's journal (src/journal/file-journal.ts, run-journal.ts); the ledger of older versions, read only, in
// sent-ledger.ts. The lock and the whole writes are in src/internal/file-lock.ts.
import { fsyncSync } from 'node:fs';
import { writeFully } from '../internal/file-lock.js';

export { readIfThere, takeLock, writeFully } from '../internal/file-lock.js';

/** Appends one JSON line and syncs it: a crash leaves at most a torn last line, which readers skip. */
export function appendSynced(fd: number, value: unknown): void {
  writeFully(fd, `${JSON.stringify(value)}\n`);
  fsyncSync(fd);
}
