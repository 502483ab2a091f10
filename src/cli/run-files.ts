// The files an `ewaybill create` run keeps beside its results: a lock, so two runs on one output never send a document
// twice, and the helpers that write them so that a crash at any byte leaves a readable state. The ledger of documents
// that may have been sent is in sent-ledger.ts.
import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { processStartOf, sameClock } from './process-start.js';

/** What a lock file holds. */
interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly startedAt: string;
  /** When the owning process started (ms since the epoch): a restarted container reuses pids, not this. */
  readonly processStart?: number;
  /**
   * When the owning process started as the system tells it for any pid (process-start.ts: /proc on Linux, `ps`
   * elsewhere), so a lock whose pid now belongs to another process is known stale. Absent where it cannot be told.
   */
  readonly pidStart?: string;
  /** This lock's own id: a release removes the lock only while it still holds it. */
  readonly token?: string;
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
 * Writes all of `text` at the file's position: `writeSync` may write only part of it (a full disk, a file-size limit)
 * without throwing, and the next write then throws the reason (ENOSPC, EFBIG). So a write either lands whole or fails.
 */
export function writeFully(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

export function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Whether the owner a lock names is gone: its process ended on this host, its pid now belongs to a process that started
 * at another time (pids are reused), or it is an earlier life of our pid. Without a start time in the lock (an older
 * version) or from the system (Windows), a live pid keeps the lock.
 */
function ownerGone(owner: Partial<LockOwner>, me: LockOwner): boolean {
  if (owner.host !== me.host || typeof owner.pid !== 'number') return false;
  if (owner.pid === me.pid) return owner.processStart !== me.processStart;
  if (!alive(owner.pid)) return true;
  if (typeof owner.pidStart !== 'string') return false;
  const now = processStartOf(owner.pid);
  return now !== undefined && sameClock(now, owner.pidStart) && now !== owner.pidStart;
}

/** How long a takeover may hold `<lock>.takeover`: one left longer was left by a run killed while taking over. */
const TAKEOVER_STALE_MS = 10_000;

/** Blocks for `ms` (the lock is taken before anything else runs, synchronously). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Removes the lock at `path` if it still holds `held`, under the takeover lock; waits a moment if another run has it. */
function removeDeadLock(path: string, held: string): void {
  const takeover = `${path}.takeover`;
  let fd: number;
  try {
    fd = openSync(takeover, 'wx');
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
    try {
      if (Date.now() - statSync(takeover).mtimeMs > TAKEOVER_STALE_MS) rmSync(takeover, { force: true });
    } catch {
      // Gone meanwhile: the other run finished its takeover.
    }
    sleepSync(5 + Math.random() * 10);
    return;
  }
  try {
    if (readIfThere(path) === held) rmSync(path, { force: true });
  } finally {
    closeSync(fd);
    rmSync(takeover, { force: true });
  }
}

/**
 * Takes `<output>.lock`. The lock is written whole to a file of its own, then linked to the lock's name, which fails
 * if it exists: a lock is never seen half-written. A lock whose process is gone (a `kill -9`, a power loss, a container
 * restarted with the same pid, a pid now given to another process) on this host is taken over: one run at a time
 * (under `<lock>.takeover`) removes it if it is still the very lock judged dead, and the runs try the link again. A
 * live one is refused, naming its pid; so is a lock from another host (its process cannot be checked from here).
 * Returns the release, which removes the lock only while it is still this run's.
 */
export function takeLock(output: string): { release: () => void } | { refused: string } {
  const path = `${output}.lock`;
  const token = randomUUID();
  const me: LockOwner = {
    pid: process.pid,
    host: hostname(),
    startedAt: new Date().toISOString(),
    processStart: Math.round(performance.timeOrigin),
    pidStart: processStartOf(process.pid),
    token,
  };
  const content = `${JSON.stringify(me)}\n`;
  // Bounded: each turn either takes the lock, refuses, or waits a moment (sleepSync) for another run's takeover.
  for (let attempt = 0; attempt < 200; attempt++) {
    const mine = `${path}.${token}.tmp`;
    const fd = openSync(mine, 'wx');
    try {
      writeFully(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(mine, path);
      return {
        release: () => {
          if (readIfThere(path) === content) rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
    } finally {
      rmSync(mine, { force: true });
    }
    const held = readIfThere(path);
    if (held === undefined) continue; // released meanwhile: try again
    let owner: Partial<LockOwner> | undefined;
    try {
      owner = JSON.parse(held) as Partial<LockOwner>;
    } catch {
      owner = undefined;
    }
    if (!owner || !ownerGone(owner, me)) {
      const who = owner && typeof owner.pid === 'number' ? owner : undefined;
      const sameHost = who?.host === me.host;
      return {
        refused: who
          ? `another run (pid ${who.pid}${sameHost ? '' : ` on ${who.host}`}, started ${who.startedAt}) is using ` +
            `${output}: wait for it to finish. If it is gone, delete ${path}.`
          : `${path} is not a lock this tool wrote (or is from a version that could leave it cut): if no run is using ` +
            `${output}, delete it.`,
      };
    }
    // Take it over, one run at a time: under `<lock>.takeover` (an exclusive create), the dead lock is removed only if
    // it is still the very lock judged dead; then every run tries the link again, and one wins. Without the takeover
    // lock, a run that judged the dead lock could remove the fresh lock another run had just made in its place.
    removeDeadLock(path, held);
  }
  return { refused: `could not take ${path}: other runs kept taking it; try again` };
}

/** Appends one JSON line and syncs it: a crash leaves at most a torn last line, which readers skip. */
export function appendSynced(fd: number, value: unknown): void {
  writeFully(fd, `${JSON.stringify(value)}\n`);
  fsyncSync(fd);
}
