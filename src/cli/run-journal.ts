// The scopes of `<output>.journal`, the run's journal (a file journal of `invoicing-service-sdk/journal`): where and
// under which key each of its records was sent, so a run refuses an output whose journal belongs to another service or
// company (issue 24's check, as the ledger before it had it). The journal keys a record by base URL and document, not
// by key: a generated record of another company's key at the same service would otherwise answer for this run's.
import { readJournalText } from '../journal/file-format.js';
import { readIfThere } from './run-files.js';
import { scopeName } from './sent-ledger.js';

/**
 * The scopes (`"<baseUrl> <key hash>"`) of every record in the journal file at `path`, whatever its status: read only,
 * a torn or damaged line skipped as the journal skips it. A record without a key hash (a journal a partner's client
 * wrote with a key function) names none and is not counted. No file: none.
 */
export function journalScopes(path: string): Set<string> {
  const scopes = new Set<string>();
  for (const { record } of readJournalText(readIfThere(path) ?? '').states.values()) {
    if (record.keyHash !== undefined) scopes.add(scopeName({ baseUrl: record.baseUrl, key: record.keyHash }));
  }
  return scopes;
}
