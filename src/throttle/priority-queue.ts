// The waiters of one rate-limit budget, by priority (issue 30). Pure: no clock, no timer, no I/O. The in-process
// limiter keeps one per key; the Redis script (src/redis/slot-script.ts) applies the same rule to its own list. Where
// a waiter stands (a replay of the rule) is in queue-place.ts, imported on first use.

/** How urgent a call is: `'high'` starts before `'normal'`, which starts before `'low'`. */
export type Priority = 'high' | 'normal' | 'low';

/** The priorities, most urgent first: the one list every order, count and label derives from. */
export const PRIORITIES = ['high', 'normal', 'low'] as const satisfies readonly Priority[];

/**
 * How many grants in a row may pass over a waiting lower-priority call: the next one goes to the oldest
 * lower-priority waiter, so a steady stream of urgent calls keeps a waiting one out for at most this many + 1 slots.
 */
export const PASS_OVER_LIMIT = 9;

/** The rank of a priority: 0 for `'high'`, 2 for `'low'`. */
export function rankOf(priority: Priority): number {
  return PRIORITIES.indexOf(priority);
}

/** One waiter's place: leaves in O(1) with {@link PriorityQueue.remove}. */
export interface QueueEntry<T> {
  readonly value: T;
  readonly priority: Priority;
  /** Arrival order across every priority. */
  readonly seq: number;
}

/** The state of the pass-over rule that a grant sequence depends on (see {@link PASS_OVER_LIMIT}). */
export interface Cursor {
  passed: number;
}

/**
 * Waiters by priority: first in, first out within a priority; a more urgent waiter first, except that after
 * {@link PASS_OVER_LIMIT} grants in a row made while a less urgent call waited, the next grant goes to the oldest of
 * the less urgent waiters.
 */
export class PriorityQueue<T> {
  // Sets keep insertion order and leave in O(1).
  readonly #lanes: Set<QueueEntry<T>>[] = PRIORITIES.map(() => new Set());
  #seq = 0;
  #passed = 0;
  /** The latest waiter added to each lane (its place there is the lane's size), while it is still there. */
  readonly #newest: (QueueEntry<T> | undefined)[] = PRIORITIES.map(() => undefined);

  /** How many wait, in all. */
  get size(): number {
    let size = 0;
    for (const lane of this.#lanes) size += lane.size;
    return size;
  }

  /** How many wait at each priority. */
  counts(): Record<Priority, number> {
    const [high, normal, low] = this.#lanes.map((lane) => lane.size) as [number, number, number];
    return { high, normal, low };
  }

  /** Adds a waiter behind every waiter of its priority. */
  add(value: T, priority: Priority): QueueEntry<T> {
    return this.adopt({ value, priority, seq: this.#seq });
  }

  /**
   * Adds a waiter made by another queue (the in-process limiter's first-in-first-out line of a key, replaced by this
   * one on the key's first call that tells a priority), keeping its arrival number: entries adopted in their order.
   */
  adopt(entry: QueueEntry<T>): QueueEntry<T> {
    this.#seq = Math.max(this.#seq, entry.seq + 1);
    (this.#lanes[rankOf(entry.priority)] as Set<QueueEntry<T>>).add(entry);
    this.#newest[rankOf(entry.priority)] = entry;
    return entry;
  }

  /** {@link PriorityQueue.add}, by the name the in-process limiter's waiters share (`Waiters` in queue-options.ts). */
  enter(value: T, priority: Priority): QueueEntry<T> {
    return this.add(value, priority);
  }

  /** {@link PriorityQueue.remove}, by the name the in-process limiter's waiters share. */
  delete(entry: QueueEntry<T>): boolean {
    return this.remove(entry);
  }

  /** Removes a waiter (an abort, a deadline); `false` when it was not waiting. */
  remove(entry: QueueEntry<T>): boolean {
    const rank = rankOf(entry.priority);
    if (this.#newest[rank] === entry) this.#newest[rank] = undefined;
    return (this.#lanes[rank] as Set<QueueEntry<T>>).delete(entry);
  }

  /** The waiter the next grant goes to, without granting it. */
  peek(): QueueEntry<T> | undefined {
    return pick(this.#heads(), { passed: this.#passed });
  }

  /** Grants the next waiter: removes and returns it, and counts the grant for the pass-over rule. */
  shift(): QueueEntry<T> | undefined {
    const cursor = { passed: this.#passed };
    const entry = pick(this.#heads(), cursor);
    if (entry) this.remove(entry);
    this.#passed = cursor.passed;
    return entry;
  }

  /** Whether `entry` still waits. */
  has(entry: QueueEntry<T>): boolean {
    return (this.#lanes[rankOf(entry.priority)] as Set<QueueEntry<T>>).has(entry);
  }

  /**
   * What the replay of src/throttle/queue-place.ts reads (imported on first use, off the client's first chunk): each
   * lane in order, the pass-over count, the newest waiter of each lane, and the next arrival's number.
   */
  view(): QueueView<T> {
    return { lanes: this.#lanes, passed: this.#passed, newest: this.#newest, seq: this.#seq };
  }

  #heads(): Iterator<QueueEntry<T>>[] {
    return this.#lanes.map((lane) => lane.values());
  }
}

/** A read-only view of a {@link PriorityQueue}. */
export interface QueueView<T> {
  readonly lanes: readonly ReadonlySet<QueueEntry<T>>[];
  readonly passed: number;
  readonly newest: readonly (QueueEntry<T> | undefined)[];
  readonly seq: number;
}

/**
 * The waiter the next grant goes to, given each lane's first waiter (most urgent lane first); updates the pass-over
 * count in `cursor`.
 */
export function pick<T>(lanes: Iterator<QueueEntry<T>>[], cursor: Cursor): QueueEntry<T> | undefined {
  const heads = lanes.map((lane) => lane.next().value as QueueEntry<T> | undefined);
  const top = heads.findIndex((head) => head !== undefined);
  if (top === -1) return undefined;
  let oldestBelow: QueueEntry<T> | undefined;
  for (const head of heads.slice(top + 1)) if (head && (!oldestBelow || head.seq < oldestBelow.seq)) oldestBelow = head;
  if (oldestBelow === undefined) {
    cursor.passed = 0;
    return heads[top];
  }
  if (cursor.passed >= PASS_OVER_LIMIT) {
    cursor.passed = 0;
    return oldestBelow;
  }
  cursor.passed += 1;
  return heads[top];
}
