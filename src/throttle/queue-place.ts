// Where a call stands in its budget's line, and what ends its wait (issue 30): imported on first use (the first call
// with a priority's place to tell, a deadline, or a status asked), off the client's first chunk.
import { EARLIER_SEND_NOTE, QueueTimeoutError } from '../errors/transport-errors.js';
import { PRIORITIES, type Priority, PriorityQueue, pick, type QueueEntry, rankOf } from './priority-queue.js';
import type {
  AcquireOptions,
  FifoWaiters,
  QUEUE_STATUS,
  QueueStatus,
  QueueStatusLimiter,
  Waiters,
} from './queue-options.js';
// Types alone from the modules of the client's first chunk (and no events.ts): a module shared between that chunk and
// this one would be a chunk of its own, fetched before the client runs.
import type { RateLimiter } from './rate-limiter.js';

/**
 * Above this many waiters a position is estimated rather than replayed: the waiters more urgent plus those of its
 * own priority ahead of it (the pass-over rule, which only moves a less urgent waiter earlier, is left out), so that
 * 100,000 queued calls that each ask their place cost O(1) each, not O(waiters).
 */
export const REPLAY_LIMIT = 1000;

/**
 * A key's waiters as a {@link PriorityQueue}: the same queue when it is one already, else a new one that adopts the
 * first-in-first-out line's waiters in their order (they keep their entries, so their leaving still finds them) and
 * takes its place as `key.waiters`; a new empty one for no key.
 */
export function prioritised<T>(key: { waiters: Waiters<T> } | undefined): PriorityQueue<T> {
  const waiters = key?.waiters;
  if (waiters instanceof PriorityQueue) return waiters;
  const queue = new PriorityQueue<T>();
  if (waiters) for (const entry of waiters as FifoWaiters<T>) queue.adopt(entry);
  if (key) key.waiters = queue;
  return queue;
}

/** How many wait at a more urgent priority than `rank`. */
function above<T>(queue: PriorityQueue<T>, rank: number): number {
  let count = 0;
  const { lanes } = queue.view();
  for (let r = 0; r < rank; r++) count += (lanes[r] as ReadonlySet<QueueEntry<T>>).size;
  return count;
}

/** Replays the grants until `stop` says so; returns how many came before (-1: never). */
function replay<T>(queue: PriorityQueue<T>, stop: (next: QueueEntry<T>) => boolean, ghost?: QueueEntry<T>): number {
  const view = queue.view();
  const lanes = view.lanes.map((lane) => [...lane]);
  if (ghost) lanes[rankOf(ghost.priority)]?.push(ghost);
  const at = lanes.map(() => 0);
  const cursor = { passed: view.passed };
  const heads = lanes.map((lane, rank) => ({
    next: (): IteratorResult<QueueEntry<T>> => {
      const value = lane[at[rank] as number];
      return value === undefined ? { done: true, value: undefined } : { done: false, value };
    },
  })) as Iterator<QueueEntry<T>>[];
  for (let count = 0; ; count++) {
    const next = pick(heads, cursor);
    if (next === undefined) return -1;
    if (stop(next)) return count;
    at[rankOf(next.priority)] = (at[rankOf(next.priority)] as number) + 1;
  }
}

/**
 * How many grants come before `entry` if no one else arrives and no one leaves (0: it is next), or -1 when it is not
 * waiting. O(waiters): the grants are replayed; above {@link REPLAY_LIMIT} waiters, the newest of a priority gets the
 * estimate in O(1).
 */
export function positionOf<T>(queue: PriorityQueue<T>, entry: QueueEntry<T>): number {
  if (!queue.has(entry)) return -1;
  const rank = rankOf(entry.priority);
  const { lanes, newest } = queue.view();
  if (queue.size > REPLAY_LIMIT && newest[rank] === entry) {
    return above(queue, rank) + (lanes[rank] as ReadonlySet<QueueEntry<T>>).size - 1;
  }
  return replay(queue, (next) => next === entry);
}

/** How many grants would come before a call of `priority` that arrived now (see {@link positionOf}). */
export function positionFor<T>(queue: PriorityQueue<T>, priority: Priority): number {
  const rank = rankOf(priority);
  const { lanes, seq } = queue.view();
  if (queue.size > REPLAY_LIMIT) return above(queue, rank) + (lanes[rank] as ReadonlySet<QueueEntry<T>>).size;
  const ghost: QueueEntry<T> = { value: undefined as T, priority, seq };
  return replay(queue, (next) => next === ghost, ghost);
}

/** The order of the grants if no one else arrives and no one leaves. O(waiters). */
export function orderOf<T>(queue: PriorityQueue<T>): T[] {
  const values: T[] = [];
  replay(queue, (next) => {
    values.push(next.value);
    return false;
  });
  return values;
}

/**
 * The error of a call that cannot start by its deadline. `earlier`: an earlier attempt of the call may have reached
 * the service (its error, or the limiter's own timeout, is the cause): the error is made saying so.
 */
export function queueTimeout(
  options: AcquireOptions,
  estimatedStartAt: number | undefined,
  earlier?: { cause: unknown },
): QueueTimeoutError {
  const limit = options.maxQueueWait === undefined ? '' : ` (maxQueueWait: ${options.maxQueueWait} ms)`;
  const why =
    estimatedStartAt === undefined
      ? 'its time to wait for a rate-limit slot ran out'
      : `the calls ahead of it would keep it waiting until ${new Date(estimatedStartAt).toISOString()}`;
  const message = `The call could not start within its maxQueueWait${limit}: ${why}; nothing was sent${earlier ? ' for this wait' : ''}`;
  return new QueueTimeoutError(earlier ? `${message} (${EARLIER_SEND_NOTE})` : message, {
    maxQueueWait: options.maxQueueWait ?? Math.max(0, (options.deadline ?? Date.now()) - Date.now()),
    estimatedStartAt,
    mayHaveSucceeded: earlier !== undefined,
    cause: earlier?.cause,
  });
}

/** Of several budgets' statuses, the one that decides when the next call starts: the latest `'normal'` start. */
export function decidingStatus(statuses: readonly QueueStatus[]): QueueStatus | undefined {
  let deciding: QueueStatus | undefined;
  for (const status of statuses) {
    if (!deciding || status.estimatedStartAt.normal > deciding.estimatedStartAt.normal) deciding = status;
  }
  return deciding;
}

/** When a call of each priority made now would start (epoch ms): `nextAt`, then `period` for each grant before it. */
export function estimatesOf<T>(queue: PriorityQueue<T>, nextAt: number, period: number): Record<Priority, number> {
  const estimated = {} as Record<Priority, number>;
  for (const priority of PRIORITIES) estimated[priority] = Math.round(nextAt + positionFor(queue, priority) * period);
  return estimated;
}

/**
 * The in-process limiter's status of a key (`state`: its waiters, made a priority queue from now on), its next start
 * `next` on `performance.now()`'s clock, `offset` to epoch milliseconds, and a grant every `period`.
 */
export function keyStatus<T>(
  state: { waiters: Waiters<T> } | undefined,
  next: number,
  now: number,
  offset: number,
  period: number,
): QueueStatus {
  const waiters = prioritised(state);
  return {
    waiting: waiters.counts(),
    nextSlotAt: next > now ? Math.round(next + offset) : undefined,
    estimatedStartAt: estimatesOf(waiters, next + offset, period),
  };
}

/**
 * {@link estimatesOf} from the waiting counts of every process (their order across processes is not known: the less
 * urgent ones are taken to have come first, as in a batch behind which urgent calls arrive).
 */
export function estimatesFrom(waiting: Record<Priority, number>, nextAt: number, period: number) {
  const queue = new PriorityQueue<undefined>();
  for (const priority of [...PRIORITIES].reverse()) {
    for (let i = 0; i < waiting[priority]; i++) queue.add(undefined, priority);
  }
  return estimatesOf(queue, nextAt, period);
}

/**
 * A waiter of the in-process limiter (nothing to do without a deadline or an `onQueued`): rejects it at once (`leave`)
 * when its start with every waiter ahead staying is past its deadline, else arms the deadline's timer (returned, for
 * the grant or the leave to clear; it fires `slack` after the deadline, the tolerance of a grant's own timer); tells
 * `onQueued` its place if it waits. The key's next start is `nextAt` (epoch ms), then one every `period`.
 */
export function checkQueued<T>(
  queue: PriorityQueue<T>,
  entry: QueueEntry<T>,
  options: AcquireOptions,
  nextAt: number,
  period: number,
  slack: number,
  leave: (reason: unknown) => void,
): ReturnType<typeof setTimeout> | undefined {
  const { deadline, onQueued } = options;
  if (deadline === undefined && !onQueued) return undefined;
  const position = positionOf(queue, entry);
  if (position < 0) return undefined; // granted meanwhile
  const startAt = nextAt + position * period;
  if (deadline !== undefined && startAt > deadline) {
    leave(queueTimeout(options, Math.round(startAt)));
    return undefined;
  }
  const timer =
    deadline === undefined
      ? undefined
      : setTimeout(() => leave(queueTimeout(options, undefined)), Math.max(0, deadline - Date.now()) + slack);
  if (position > 0 || startAt > Date.now() + 1) {
    try {
      onQueued?.({ priority: options.priority ?? 'normal', position, estimatedStartAt: Math.round(startAt) });
    } catch {
      // The client's own callback reports a hook's error; a throwing callback must not lose the call's turn.
    }
  }
  return timer;
}

/**
 * `signal`, or one that also aborts with a `QueueTimeoutError` when `options.deadline` passes (plus `slack`, the
 * tolerance of the grant's own timer). `dispose` clears its timer and listener.
 */
export function untilDeadline(
  signal: AbortSignal | undefined,
  options: AcquireOptions | undefined,
  slack: number,
): { signal: AbortSignal | undefined; dispose(): void } {
  const deadline = options?.deadline;
  if (deadline === undefined) return { signal, dispose: () => {} };
  const controller = new AbortController();
  const forward = () => controller.abort(signal?.reason);
  if (signal?.aborted) forward();
  else signal?.addEventListener('abort', forward, { once: true });
  const timer = setTimeout(
    () => controller.abort(queueTimeout(options ?? {}, undefined)),
    Math.max(0, deadline - Date.now()) + slack,
  );
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    },
  };
}

/**
 * `QUEUE_STATUS` of queue-options.ts, a registered symbol: the same symbol, without importing that module of the
 * client's first chunk into this one (a module both import would be a chunk of its own, fetched before the client runs).
 */
const STATUS_OF: typeof QUEUE_STATUS = Symbol.for('invoicing-service-sdk.limiter-queue-status') as never;

/**
 * `acquire(signal)` at `limiter` within the call's deadline: a limiter that does not keep deadlines (a partner's, one
 * that does not tell its queue) is given a signal that also aborts at the deadline, with a `QueueTimeoutError`: the
 * wait ends then, and a later grant is given back unused (by the caller's abort handling).
 */
export async function withinDeadline<R>(
  limiter: RateLimiter,
  signal: AbortSignal | undefined,
  options: AcquireOptions,
  acquire: (signal: AbortSignal | undefined) => Promise<R>,
): Promise<R> {
  if (STATUS_OF in limiter) return acquire(signal);
  const waiting = untilDeadline(signal, options, 0);
  try {
    return await acquire(waiting.signal);
  } finally {
    waiting.dispose();
  }
}

/**
 * `client.queueStatus()`: of the limiter's budgets (the key's), the one that decides; none waiting for a limiter (a
 * partner's) that does not tell its queue.
 */
export async function queueStatusOf(limiter: RateLimiter, budgets: readonly string[]): Promise<QueueStatus> {
  const statuses = (await (limiter as Partial<QueueStatusLimiter>)[STATUS_OF]?.(budgets)) ?? [];
  const now = Date.now();
  return (
    decidingStatus(statuses) ?? {
      waiting: { high: 0, normal: 0, low: 0 },
      nextSlotAt: undefined,
      estimatedStartAt: { high: now, normal: now, low: now },
    }
  );
}

/** `options` whose `onQueued` is called at most once, however many stages (budgets, processes) the wait goes through. */
export function queuedOnce(options: AcquireOptions | undefined): AcquireOptions | undefined {
  const onQueued = options?.onQueued;
  if (!onQueued) return options;
  let called = false;
  return {
    ...options,
    onQueued: (info) => {
      if (called) return;
      called = true;
      onQueued(info);
    },
  };
}
