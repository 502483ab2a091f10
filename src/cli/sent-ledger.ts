// `<output>.sent`, the ledger of `ewaybill create`: every document whose request may have left, so "the bill may
// already exist" outlives any crash, lost result line or later failure. A record names the service and the key it was
// sent with: the same document id at another service, or under another company's key, is another document.
import { closeSync, fsyncSync, openSync, readFileSync } from 'node:fs';
import { readIfThere, writeFully } from './run-files.js';

/** Where documents are sent: the base URL and a short hash of the key (never the key). */
export interface LedgerScope {
  readonly baseUrl: string;
  readonly key: string;
}

/** A scope as one string, as the results file's `where` has it: `"<baseUrl> <key>"`. */
export const scopeName = (scope: LedgerScope) => `${scope.baseUrl} ${scope.key}`;

/** A ledger opened for one scope. */
export interface SentLedger {
  /** Whether a run ever recorded the document as sent in this scope. */
  has(id: string): boolean;
  /** Records the document before its request leaves (appended, then synced). @throws when it cannot be written. */
  add(id: string): void;
  /** Scopes other than this one that records name, as `"<baseUrl> <key>"`. */
  readonly elsewhere: ReadonlySet<string>;
  /** Documents recorded by versions before 0.3, which did not say where they were sent (bare ids, and 0.1's `.inflight`). */
  readonly unscoped: ReadonlySet<string>;
  close(): void;
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
 * Opens `<output>.sent` for `scope`. Each line is one JSON record, `{"docHashId","baseUrl","key"}`, written on a line
 * of its own and synced before the request leaves; a line cut by a crash is ignored (it was cut before the request
 * left). Lines of older versions (a bare JSON string) are kept apart, in `unscoped`.
 */
export function openSentLedger(output: string, scope: LedgerScope): SentLedger {
  const path = `${output}.sent`;
  const sent = new Set<string>();
  const elsewhere = new Set<string>();
  const unscoped = new Set<string>();
  const here = scopeName(scope);
  for (const raw of (readIfThere(path) ?? '').split('\n')) {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      continue; // A torn last line, or not ours.
    }
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
  let fd: number | undefined;
  return {
    has: (id) => sent.has(id),
    add(id) {
      if (sent.has(id)) return;
      fd ??= openSync(path, 'a');
      // A new line first: a line torn by an earlier crash never swallows this one.
      writeFully(fd, `\n${JSON.stringify({ docHashId: id, baseUrl: scope.baseUrl, key: scope.key })}\n`);
      fsyncSync(fd);
      sent.add(id);
    },
    elsewhere,
    unscoped,
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/** The document a request of `createEwayBill` is about: `<baseUrl>/v2/ewaybill/<encoded id>`. */
function documentOf(resource: Parameters<typeof fetch>[0], baseUrl: string): string | undefined {
  const url = typeof resource === 'string' ? resource : resource instanceof URL ? resource.href : resource.url;
  const prefix = `${baseUrl}/v2/ewaybill/`;
  return url.startsWith(prefix) ? decodeURIComponent(url.slice(prefix.length).split(/[?#]/)[0] as string) : undefined;
}

/**
 * The `fetch` of the CLI's client: it records the document of each e-way bill request in the ledger just before the
 * request is handed to fetch, so the ledger names only what may have been sent (a document refused by the model
 * checks or the preflight never gets here). When the record cannot be written, the request is not sent, and
 * `unrecorded` is told the document and the reason before the failure is returned (the SDK, which cannot see inside a
 * custom fetch, calls the failure "may have been sent"; the CLI knows better, and stops the run: nothing more can be
 * recorded).
 */
export function recordingFetch(
  ledger: () => SentLedger | undefined,
  baseUrl: () => string,
  unrecorded: (id: string, error: Error) => void,
): typeof fetch {
  return (resource, init) => {
    const id = documentOf(resource, baseUrl());
    const open = ledger();
    if (id === undefined || open === undefined) {
      return Promise.reject(new Error('ewaybill create sends only e-way bill requests, each recorded first'));
    }
    try {
      open.add(id);
    } catch (error) {
      unrecorded(id, error instanceof Error ? error : new Error(String(error)));
      return Promise.reject(error);
    }
    return globalThis.fetch(resource, init);
  };
}
