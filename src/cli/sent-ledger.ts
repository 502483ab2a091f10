// `<output>.sent`, the ledger `ewaybill create` kept before 0.3 (and 0.1's `<output>.inflight`): every document whose
// request may have left. From 0.3 the run's journal, `<output>.journal`, records that; these files are only read, as
// what the old version knew, so a document it may have sent is never taken for a new one. Nothing writes them any more.
// A record names the service and the key it was sent with: the same document id at another service, or under another
// company's key, is another document.
import { readFileSync, statSync } from 'node:fs';
import { jsonValues } from './jsonl.js';
import { readIfThere } from './run-files.js';

/** Where documents are sent: the base URL and a short hash of the key (never the key). */
export interface LedgerScope {
  readonly baseUrl: string;
  readonly key: string;
}

/** A scope as one string, as the results file's `where` has it: `"<baseUrl> <key>"`. */
export const scopeName = (scope: LedgerScope) => `${scope.baseUrl} ${scope.key}`;

/** What an old ledger says, read for one scope. */
export interface OldLedger {
  /** Whether the old version recorded the document as sent in this scope. */
  has(id: string): boolean;
  /** Scopes other than this one that records name, as `"<baseUrl> <key>"`. */
  readonly elsewhere: ReadonlySet<string>;
  /** Documents recorded by 0.2.x and earlier, which did not say where they were sent (bare ids, 0.1's `.inflight`). */
  readonly unscoped: ReadonlySet<string>;
  /** When the files were last written (ms since the epoch), or `undefined` when there are none. */
  readonly writtenAt: number | undefined;
}

function isRecord(value: unknown): value is { docHashId: string; baseUrl: string; key: string } {
  const record = value as Record<string, unknown> | null;
  return (
    typeof record === 'object' &&
    record !== null &&
    typeof record.docHashId === 'string' &&
    typeof record.baseUrl === 'string' &&
    typeof record.key === 'string'
  );
}

/**
 * Reads `<output>.sent` (and `<output>.inflight`) for `scope`, read only. Each line of `.sent` is one JSON record,
 * `{"docHashId","baseUrl","key"}`, synced before its request left; a line cut by a crash is ignored (it was cut before
 * the request left). Lines of older versions (a bare JSON string) are kept apart, in `unscoped`. No file: nothing.
 */
export function readOldLedger(output: string, scope: LedgerScope): OldLedger {
  const sent = new Set<string>();
  const elsewhere = new Set<string>();
  const unscoped = new Set<string>();
  const here = scopeName(scope);
  for (const value of jsonValues(readIfThere(`${output}.sent`) ?? '')) {
    if (typeof value === 'string') unscoped.add(value);
    else if (isRecord(value)) {
      const where = scopeName(value);
      if (where === here) sent.add(value.docHashId);
      else elsewhere.add(where);
    }
  }
  // 0.1's journal of documents in flight, when a run of it was killed: the same meaning, without a scope.
  try {
    const earlier: unknown = JSON.parse(readFileSync(`${output}.inflight`, 'utf8'));
    if (Array.isArray(earlier)) for (const id of earlier) if (typeof id === 'string') unscoped.add(id);
  } catch {
    // None, or cut.
  }
  const times = ['sent', 'inflight'].map(
    (end) => statSync(`${output}.${end}`, { throwIfNoEntry: false })?.mtimeMs ?? 0,
  );
  const writtenAt = Math.max(...times);
  return { has: (id) => sent.has(id), elsewhere, unscoped, writtenAt: writtenAt > 0 ? writtenAt : undefined };
}
