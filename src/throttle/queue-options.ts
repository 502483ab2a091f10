// What a call tells a rate limiter about its wait (issue 30): its priority, the latest time it may start, and where to
// report its place in line. Types, symbols and one small helper, on the client's first chunk; what works out a place
// in line or a timeout is in queue-place.ts, imported on first use.
import type { Priority, QueueEntry } from './priority-queue.js';

/**
 * The waiters of one key in the in-process limiter: a first-in-first-out line until the key's first call that tells a
 * priority, a deadline or `onQueued`, then a `PriorityQueue` (./priority-queue.ts, loaded with ./queue-place.ts on
 * first use, off the client's first chunk).
 */
export interface Waiters<T> {
  readonly size: number;
  counts(): Record<Priority, number>;
  /** Adds a waiter behind every waiter of its priority. */
  enter(value: T, priority: Priority): QueueEntry<T>;
  delete(entry: QueueEntry<T>): boolean;
  shift(): QueueEntry<T> | undefined;
}

/** Arrival numbers of {@link FifoWaiters}' entries: increasing within each line, which is all their order needs. */
let arrivals = 0;

/**
 * The first-in-first-out {@link Waiters} of a key whose calls told no priority (every entry is `'normal'`): a Set
 * keeps insertion order, and leaving it is O(1).
 */
export class FifoWaiters<T> extends Set<QueueEntry<T>> implements Waiters<T> {
  counts(): Record<Priority, number> {
    return { high: 0, normal: this.size, low: 0 };
  }

  enter(value: T, priority: Priority): QueueEntry<T> {
    const entry = { value, priority, seq: arrivals++ };
    this.add(entry);
    return entry;
  }

  shift(): QueueEntry<T> | undefined {
    const entry: QueueEntry<T> | undefined = this.values().next().value;
    if (entry) this.delete(entry);
    return entry;
  }
}

/**
 * The in-process limiter's default `margin` (ms), the tolerance of its grant's timer: a grant of a call with a
 * deadline may come this late after it (a starved event loop fires timers late), and the client keeps such a grant
 * (../client/queue-call.ts `grantedTooLate`, given it by the transport).
 */
export const DEFAULT_MARGIN_MS = 25;

/** Where a call stands when it has to wait for its slot. */
export interface QueuedInfo {
  readonly priority: Priority;
  /** How many calls of its budget start before it if none arrives or leaves (0: it is next). */
  readonly position: number;
  /** When it is expected to start (epoch ms) if no call ahead of it leaves. */
  readonly estimatedStartAt: number;
}

/**
 * The third argument of {@link RateLimiter.acquire}: a limiter that ignores it still works, first in first out (the
 * client then ends the wait at `deadline` itself, and gives a later grant back unused).
 */
export interface AcquireOptions {
  /**
   * How urgent the call is: a limiter should start `'high'` calls before `'normal'` ones, and those before `'low'`.
   * @default 'normal'
   */
  readonly priority?: Priority | undefined;
  /**
   * The latest time (epoch ms, `Date.now()`'s clock) the call may start; `undefined` for no limit. A limiter should
   * reject with a `QueueTimeoutError` at once when the call's start, with every call ahead staying, would be later,
   * and otherwise when the time comes.
   */
  readonly deadline?: number | undefined;
  /** Called at most once, when the call has to wait, with its place in line. */
  readonly onQueued?: ((info: QueuedInfo) => void) | undefined;
  /** The call's `maxQueueWait`, for the error's message. */
  readonly maxQueueWait?: number | undefined;
}

/** What {@link ServiceClient.queueStatus} answers for the budget that decides when the client's next call starts. */
export interface QueueStatus {
  /** How many calls wait, per priority (in every process, on the Redis limiter). */
  readonly waiting: Record<Priority, number>;
  /** The earliest time (epoch ms) the budget's next call may start, or `undefined` when it may start now. */
  readonly nextSlotAt: number | undefined;
  /** When a call of each priority made now is expected to start (epoch ms), if no call ahead of it leaves. */
  readonly estimatedStartAt: Record<Priority, number>;
}

/**
 * Marks a limiter that tells its queue: `limiter[QUEUE_STATUS](keyIds)` answers a {@link QueueStatus} for each
 * budget. A registered symbol, so the ESM and CJS copies of the SDK agree.
 */
export const QUEUE_STATUS: unique symbol = Symbol.for('invoicing-service-sdk.limiter-queue-status') as never;

/** A limiter that tells its queue. */
export interface QueueStatusLimiter {
  [QUEUE_STATUS](keyIds: readonly string[]): Promise<QueueStatus[]>;
}

/**
 * Marks the in-process limiter's synchronous count of a key's waiters, per priority (the Redis limiter publishes it
 * with each ask, so every process can count every process's waiters).
 */
export const WAITING_COUNTS: unique symbol = Symbol.for('invoicing-service-sdk.limiter-waiting-counts') as never;
