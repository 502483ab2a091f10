import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { takeLock, writeFully } from '../cli/run-files.js';
import { JournalClaimLostError, JournalError, JournalLockedError } from '../errors/journal-error.js';
import { checkDocument, checkId, checkIntent, checkMs, checkOutcome } from './checks.js';
import { encodeLine, readJournalText, stateLine } from './file-format.js';
import { rewriteJournal } from './file-rewrite.js';
import { DEFAULT_JOURNAL_MAX_AGE_MS, type Journal, type JournalClaim, type JournalRecord } from './journal.js';
import { type DocumentState, documentKey, isExpired, withIntent, withOutcome } from './records.js';

/** Options of {@link createFileJournal}. */
export interface FileJournalOptions {
  /** How old a record with a known outcome may grow before compaction drops it. @default 604800000 (7 days) */
  maxAgeMs?: number | undefined;
  /**
   * The file is compacted (rewritten with one line per live document) when it grows past the larger of this and twice
   * its size after the last compaction, so it stays within about twice what it must hold. `false`: only `compact()`.
   * @default 16777216 (16 MiB)
   */
  compactAtBytes?: number | false | undefined;
  /** How long to wait for another process's lock on the file before refusing with `JournalLockedError`. @default 0 */
  lockWaitMs?: number | undefined;
}

/** A {@link Journal} in one file; see {@link createFileJournal}. */
export interface FileJournal extends Journal {
  /** The journal's file. */
  readonly path: string;
  /** Takes the lock and reads the file now, instead of on first use (to hear of a lock held elsewhere at start-up). */
  open(): Promise<void>;
  /** The file's size in bytes, and the documents it knows (after `open`). */
  stats(): {
    readonly bytes: number;
    readonly documents: number;
    readonly pending: number;
    readonly skippedLines: number;
  };
}

interface Opened {
  fd: number;
  bytes: number;
  compactedBytes: number;
  needsNewline: boolean;
  readonly states: Map<string, DocumentState>;
  readonly claims: Map<string, { owner: string; until: number }>;
  readonly skipped: number;
  readonly release: () => void;
}

const LOCK_POLL_MS = 50;

function readIfThere(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return '';
    throw error;
  }
}

const failure = (what: string, error: unknown) =>
  new JournalError(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });

/**
 * A {@link Journal} in one append-only file, for one process: each change is one line (the document's whole state,
 * with a checksum), written and synced (`fsync`) before the method resolves, so `recordIntent` is on disk before the
 * request leaves. A crash cuts at most the last line, which is skipped when the file is read again (it was never
 * acknowledged) and cut off when the file is opened, so a later line never joins it. The file grows by a line per change and is compacted in
 * place (rewritten to a temporary file, synced, renamed over it), dropping known outcomes older than `maxAgeMs` and
 * never an unknown one.
 *
 * One process writes the file: it holds `<path>.lock` (its pid, host and start time) from the first use to `close()`.
 * That lock is the journal's claim across processes; within the process, claims with leases keep two calls from
 * sending one document at once. A lock left by a process that died (`kill -9`, a restarted container) is taken over;
 * a live one is refused (`JournalLockedError`, after `lockWaitMs`). To share documents between processes or hosts,
 * use the Redis journal (`invoicing-service-sdk/redis`) or one of your own.
 *
 * The file holds request bodies (business data, no secrets) while their outcome is unknown, and the key's hash only.
 * Writes are synchronous (the event loop waits for each `fsync`), as the CLI's ledger does.
 *
 * @throws {TypeError} for a bad path or option. Methods reject with `JournalLockedError` when another live process
 *   holds the file, with `JournalError` when it cannot be read or written.
 * @example
 * import { createFileJournal } from 'invoicing-service-sdk/journal';
 * const journal = createFileJournal('/var/lib/erp/ewaybills.journal');
 * await journal.open(); // refuses at start-up if another process has it
 */
export function createFileJournal(path: string, options: FileJournalOptions = {}): FileJournal {
  if (typeof path !== 'string' || path === '')
    throw new TypeError('createFileJournal: path must be a non-empty string');
  if (typeof options !== 'object' || options === null)
    throw new TypeError('createFileJournal: options must be an object');
  const maxAgeMs = checkMs(options.maxAgeMs ?? DEFAULT_JOURNAL_MAX_AGE_MS, 'createFileJournal: options.maxAgeMs', 0);
  const compactAt =
    options.compactAtBytes === false
      ? Number.POSITIVE_INFINITY
      : checkMs(options.compactAtBytes ?? 16 * 1024 * 1024, 'createFileJournal: options.compactAtBytes', 1);
  const lockWaitMs = checkMs(options.lockWaitMs ?? 0, 'createFileJournal: options.lockWaitMs', 0);
  let opening: Promise<Opened> | undefined;
  /** The open journal, once `opening` resolved: `stats()` reads it synchronously. */
  let current: Opened | undefined;
  let closed = false;

  async function lock(): Promise<() => void> {
    const deadline = performance.now() + lockWaitMs;
    for (;;) {
      const taken = takeLock(path);
      if ('release' in taken) return taken.release;
      if (performance.now() >= deadline) throw new JournalLockedError(`the file journal: ${taken.refused}`);
      await sleep(LOCK_POLL_MS);
    }
  }

  async function openNow(): Promise<Opened> {
    const release = await lock();
    let fd: number | undefined;
    try {
      const read = readJournalText(readIfThere(path));
      fd = openSync(path, 'a');
      if (fstatSync(fd).size > read.wholeBytes) {
        // A line torn by a crash: cut off, so it can never be completed by a later newline and read as written.
        ftruncateSync(fd, read.wholeBytes);
        fsyncSync(fd);
      }
      const bytes = read.wholeBytes;
      const opened: Opened = {
        fd,
        bytes,
        compactedBytes: bytes,
        needsNewline: false,
        states: read.states,
        claims: new Map(),
        skipped: read.skipped,
        release,
      };
      if (bytes === 0) append(opened, encodeLine({ t: 'h', v: 1 }));
      current = opened;
      return opened;
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      release();
      throw error instanceof JournalError ? error : failure(`could not open the file journal ${path}`, error);
    }
  }

  const use = (): Promise<Opened> => {
    if (closed) return Promise.reject(new JournalError(`the file journal ${path} is closed`));
    opening ??= openNow().catch((error: unknown) => {
      opening = undefined;
      throw error;
    });
    return opening;
  };

  /** Appends and syncs a line; the caller changes its memory only after this returned. */
  function append(opened: Opened, line: string): void {
    const text = opened.needsNewline ? `\n${line}` : line;
    try {
      writeFully(opened.fd, text);
      fsyncSync(opened.fd);
    } catch (error) {
      // The file may now end in a cut line: it is cut off, or else the next line starts on a new line.
      try {
        ftruncateSync(opened.fd, opened.bytes);
      } catch {
        opened.needsNewline = true;
      }
      throw failure(`could not write the file journal ${path}`, error);
    }
    opened.needsNewline = false;
    opened.bytes += Buffer.byteLength(text);
  }

  function save(opened: Opened, key: string, document: { baseUrl: string; docHashId: string }, state?: DocumentState) {
    append(opened, stateLine(document.baseUrl, document.docHashId, state));
    if (state) opened.states.set(key, state);
    else opened.states.delete(key);
    if (opened.bytes > Math.max(compactAt, 2 * opened.compactedBytes)) {
      try {
        compactNow(opened, maxAgeMs);
      } catch {
        // The change itself is recorded: a compaction that failed (a full disk) is tried again once the file has
        // doubled once more, and never fails the call. `compact()` reports its own failure.
        opened.compactedBytes = opened.bytes;
      }
    }
  }

  function compactNow(opened: Opened, age: number) {
    const now = Date.now();
    const kept: DocumentState[] = [];
    const dropped: string[] = [];
    for (const [key, state] of opened.states) {
      if (isExpired(state.record, age, now)) dropped.push(key);
      else kept.push(state);
    }
    try {
      const { fd, bytes } = rewriteJournal(path, opened.fd, kept);
      opened.fd = fd;
      opened.bytes = bytes;
      opened.compactedBytes = bytes;
      opened.needsNewline = false;
    } catch (error) {
      throw failure(`could not compact the file journal ${path}`, error);
    }
    for (const key of dropped) opened.states.delete(key);
    return { dropped: dropped.length, kept: kept.length };
  }

  const journal: FileJournal = {
    path,
    async open() {
      await use();
    },
    stats() {
      const opened = current;
      let pending = 0;
      for (const state of opened?.states.values() ?? []) if (state.record.status === 'sent-maybe') pending += 1;
      return {
        bytes: opened?.bytes ?? 0,
        documents: opened?.states.size ?? 0,
        pending,
        skippedLines: opened?.skipped ?? 0,
      };
    },
    async claim(document, owner, leaseMs): Promise<JournalClaim> {
      const { baseUrl, docHashId } = checkDocument(document, 'claim');
      checkId(owner, 'journal.claim: owner');
      checkMs(leaseMs, 'journal.claim: leaseMs');
      const opened = await use();
      const key = documentKey(baseUrl, docHashId);
      const now = Date.now();
      const record = opened.states.get(key)?.record;
      const held = opened.claims.get(key);
      if (held && held.owner !== owner && held.until > now) {
        return { claimed: false, owner: held.owner, expiresAt: held.until, record, now };
      }
      opened.claims.set(key, { owner, until: now + leaseMs });
      return { claimed: true, expiresAt: now + leaseMs, record, now };
    },
    async recordIntent(intent): Promise<JournalRecord> {
      const checked = checkIntent(intent);
      const opened = await use();
      const key = documentKey(checked.baseUrl, checked.docHashId);
      const now = Date.now();
      const held = opened.claims.get(key);
      if (!held || held.owner !== checked.owner || held.until <= now) {
        throw new JournalClaimLostError(
          `journal.recordIntent: ${checked.docHashId} is not claimed by ${checked.owner} (its lease ran out or another call claimed it); nothing may be sent`,
        );
      }
      const state = withIntent(opened.states.get(key), checked, randomUUID(), now);
      save(opened, key, checked, state);
      return state.record;
    },
    async recordOutcome(document, attempt, outcome) {
      const checkedDocument = checkDocument(document, 'recordOutcome');
      checkId(attempt, 'journal.recordOutcome: attempt');
      const checked = checkOutcome(outcome);
      const opened = await use();
      const key = documentKey(checkedDocument.baseUrl, checkedDocument.docHashId);
      const before = opened.states.get(key);
      const after = withOutcome(before, attempt, checked, Date.now());
      if (after !== before) save(opened, key, checkedDocument, after);
      return after?.record;
    },
    async release(document, owner) {
      const { baseUrl, docHashId } = checkDocument(document, 'release');
      checkId(owner, 'journal.release: owner');
      const opened = await use();
      const key = documentKey(baseUrl, docHashId);
      if (opened.claims.get(key)?.owner === owner) opened.claims.delete(key);
    },
    async get(document) {
      const { baseUrl, docHashId } = checkDocument(document, 'get');
      return (await use()).states.get(documentKey(baseUrl, docHashId))?.record;
    },
    async pending(filter) {
      const baseUrl = filter?.baseUrl;
      const records: JournalRecord[] = [];
      for (const { record } of (await use()).states.values()) {
        if (record.status === 'sent-maybe' && (baseUrl === undefined || record.baseUrl === baseUrl))
          records.push(record);
      }
      return records;
    },
    async compact(compactOptions) {
      const age = checkMs(compactOptions?.maxAgeMs ?? maxAgeMs, 'journal.compact: maxAgeMs', 0);
      return compactNow(await use(), age);
    },
    async close() {
      if (closed) return;
      closed = true;
      const pendingOpen = opening;
      opening = undefined;
      const opened = await pendingOpen?.catch(() => undefined);
      current = undefined;
      if (!opened) return;
      try {
        closeSync(opened.fd);
      } finally {
        opened.release();
      }
    },
  };
  return journal;
}
