// The files an `ewaybill create` run keeps beside its results: a lock, so two runs on one output never send a document
// twice, and the ledger of every document ever handed to the service, so "the bill may already exist" outlives any
// crash, lost result line or later failure. Both are written so that a crash at any byte leaves a readable state.
import { closeSync, fsyncSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';

/** What a lock file holds. */
interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly startedAt: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as { code?: string }).code === 'EPERM';
  }
}

/**
 * Takes `<output>.lock` with an exclusive create. A lock whose process is gone (a `kill -9`, a power loss) on this host
 * is taken over; a live one is refused, naming its pid. A lock from another host is refused too (its process cannot be
 * checked from here). Returns the release, or the reason.
 */
export function takeLock(output: string): { release: () => void } | { refused: string } {
  const path = `${output}.lock`;
  const me: LockOwner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, `${JSON.stringify(me)}\n`);
      fsyncSync(fd);
      closeSync(fd);
      return { release: () => rmSync(path, { force: true }) };
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
    }
    let owner: Partial<LockOwner> | undefined;
    try {
      owner = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>;
    } catch {
      // Cut mid-write by a crash before its first byte was synced: nobody holds it.
      owner = undefined;
    }
    const sameHost = owner?.host === me.host;
    if (owner && typeof owner.pid === 'number' && (!sameHost || alive(owner.pid))) {
      return {
        refused:
          `another run (pid ${owner.pid}${sameHost ? '' : ` on ${owner.host}`}, started ${owner.startedAt}) is using ` +
          `${output}: wait for it to finish. If it is gone, delete ${path}.`,
      };
    }
    rmSync(path, { force: true });
  }
  return { refused: `could not take ${path}` };
}

/**
 * `<output>.sent`: one JSON string per line, appended and synced before the request leaves. A document named there may
 * have an e-way bill, whatever happened after (a crash, a lost result line, a later run that failed), so its 604
 * "already generated" is success. A line cut by a crash is ignored: it was cut before the request left.
 */
export function openSentLedger(output: string) {
  const path = `${output}.sent`;
  const sent = new Set<string>();
  try {
    for (const raw of readFileSync(path, 'utf8').split('\n')) {
      try {
        const id: unknown = JSON.parse(raw);
        if (typeof id === 'string') sent.add(id);
      } catch {
        // A torn last line, or not ours.
      }
    }
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw error;
  }
  // 0.1's journal of documents in flight, when a run of it was killed: the same meaning.
  try {
    const earlier: unknown = JSON.parse(readFileSync(`${output}.inflight`, 'utf8'));
    if (Array.isArray(earlier)) for (const id of earlier) if (typeof id === 'string') sent.add(id);
  } catch {
    // None, or cut.
  }
  let fd: number | undefined;
  return {
    /** Whether the document was ever handed to the service by a run on this output. */
    has: (id: string) => sent.has(id),
    /** Records the document before its request leaves (appended, then synced). */
    add(id: string): void {
      if (sent.has(id)) return;
      fd ??= openSync(path, 'a');
      // A new line first: a line torn by an earlier crash never swallows this one.
      writeSync(fd, `\n${JSON.stringify(id)}\n`);
      fsyncSync(fd);
      sent.add(id);
    },
    close(): void {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/** Appends one JSON line and syncs it: a crash leaves at most a torn last line, which readers skip. */
export function appendSynced(fd: number, value: unknown): void {
  writeSync(fd, `${JSON.stringify(value)}\n`);
  fsyncSync(fd);
}
