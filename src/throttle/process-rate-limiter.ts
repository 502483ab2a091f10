import pThrottle from 'p-throttle';
import { pause } from './pause.js';
import type { Priority, QueueEntry } from './priority-queue.js';
import { checkOption, type ProcessRateLimiterOptions } from './process-rate-limiter-options.js';
import {
  type AcquireOptions,
  DEFAULT_MARGIN_MS,
  FifoWaiters,
  QUEUE_STATUS,
  type QueueStatus,
  type QueueStatusLimiter,
  WAITING_COUNTS,
  type Waiters,
} from './queue-options.js';
import { queuePlace as place } from './queue-place-lazy.js';

type QueuePlace = typeof import('./queue-place.js');

import {
  ACQUIRE_HELD,
  type AcquireHeld,
  ENQUEUE,
  type Enqueue,
  HONORS_ABORT,
  type RateLimiter,
  type ReleaseSlot,
  type SlotOutcome,
  type SlotWaiter,
} from './rate-limiter.js';

/** The in-process limiter: a {@link RateLimiter} that also tells how many keys it holds. */
export interface ProcessRateLimiter extends RateLimiter {
  /**
   * How many API keys the limiter holds state for: keys waiting, in flight, or whose next request may not start yet.
   * An idle key is forgotten within about `2 × interval` of its next allowed start without any further call, so a
   * multi-tenant process does not grow with the number of companies it has ever served. For monitoring.
   */
  readonly keyCount: number;
}

/** What the Redis limiter uses of the in-process one: its held grant, its queue's counts and status. */
export interface LocalLimiter extends QueueStatusLimiter {
  readonly [ACQUIRE_HELD]: AcquireHeld;
  readonly [ENQUEUE]: Enqueue;
  [WAITING_COUNTS](keyId: string): Record<Priority, number>;
}

interface InFlight {
  /** When the request left, as far as the client has told (its grant, then each `sent()`). */
  start: number;
  /** When it was granted. */
  readonly grantedAt: number;
  /** Being written: it may reach the service at any moment, until `sent()` says it has. */
  leaving: boolean;
  /**
   * Granted while the request still waits for another of its budgets: it may leave at any moment after that, so the
   * key's next request waits for its `sent()` or its release, however long (both come from this process).
   */
  held: boolean;
  /** Whether `sent()` was called: a request released without it never left, and its slot is given back. */
  wasSent: boolean;
  /** The key's `lastStart` before this grant, restored when the grant is given back unused. */
  readonly previousStart: number;
}

/** A waiter of a key's line: the caller's own record ({@link SlotWaiter}); `hold`: grant it held (see {@link InFlight.held}). */
type Waiter = SlotWaiter;

interface KeyState {
  /** p-throttle's gate: one call of it is one slot. Replaced when it could delay the key for nothing. */
  slot: () => Promise<void>;
  /** Aborts the gate and every wait of its turn, clearing their timers, when the last waiter leaves. */
  gateController: AbortController;
  /** `Date.now() - performance.now()` when the gate was made: p-throttle runs on the wall clock. */
  clockOffset: number;
  /**
   * Callers waiting for a slot: first come first served (leaving it is O(1)); by priority, first come first served
   * within one, from the key's first call that tells a priority, a deadline or `onQueued` (see {@link Waiters}).
   */
  waiters: Waiters<Waiter>;
  /** Whether a slot has been asked of p-throttle and has not fired yet. */
  slotPending: boolean;
  /** `performance.now()` at the last start granted, or -Infinity. */
  lastStart: number;
  /** The requests started and not yet released, each with its start time. */
  inFlight: Set<InFlight>;
  /** The latest-started request that has ended: when it left, and when it ended (its answer, or its failure). */
  lastAnswered: { start: number; at: number } | undefined;
  /** The latest time by which an ended request had reached the service, as far as the client can tell. */
  arrivalBound: number;
  /** Woken at each release. */
  releaseListeners: Set<() => void>;
}

const wallClockOffset = () => Date.now() - performance.now();

/**
 * An in-process {@link RateLimiter}: per key, a FIFO queue in front of a p-throttle gate
 * (`limit: 1`, strict). Only the head of the queue holds a pending p-throttle slot, so a caller that aborts
 * while queued leaves at once and its turn passes to the next one. A monotonic-clock check guarantees
 * that no two starts of one key are less than `interval` apart, and (by default) that a request starts at least
 * `interval` after the previous request's answer. Idle keys are dropped, so a multi-tenant
 * process with many keys does not grow without bound. Nothing runs and no timer exists while idle.
 * @throws {TypeError} when an option is not a number in its range.
 */
export function createProcessRateLimiter(options: ProcessRateLimiterOptions = {}): ProcessRateLimiter {
  const interval = checkOption('interval', options.interval ?? 1000, 1);
  const margin = checkOption('margin', options.margin ?? DEFAULT_MARGIN_MS, 0);
  const waitForAnswer = options.waitForAnswer ?? false;
  const answerWaitLimit = checkOption('answerWaitLimit', options.answerWaitLimit ?? 1000, 0, true);
  const keys = new Map<string, KeyState>();
  // How late after its write the service may count a request, learnt from 429s. A 429 says the service saw two
  // requests of a key closer than they were written (its gateway queued them): a property of the service, so it is
  // learnt for every key: from then on the next request of a key waits `interval` after the previous one's answer, or
  // after `answerWaitLimit` past its write if the answer is slower (the policy of `waitForAnswer`), and that lag halves
  // every 30 s, so a service that counted late once is treated conservatively for a while, then trusted again.
  // Without a 429 it costs nothing: slow answers do not slow a key down.
  let learnt = 0;
  let learntAt = Number.NEGATIVE_INFINITY;
  const LEARNT_HALF_LIFE_MS = 30_000;
  const maxLag = Math.min(answerWaitLimit, interval * 10);
  const learntLag = (now: number) => (learnt === 0 ? 0 : learnt * 0.5 ** ((now - learntAt) / LEARNT_HALF_LIFE_MS));
  /** Sweeps idle keys while any are held; unref'd, so it never keeps the process alive. */
  let sweeper: ReturnType<typeof setInterval> | undefined;

  const isIdle = (state: KeyState) => !state.slotPending && state.waiters.size === 0 && state.inFlight.size === 0;
  // An idle key whose next start has come constrains nobody: a fresh key would be granted at once too, so forgetting it
  // is exact. (Forgetting it `interval` after its last start, as before, dropped its margin and any learnt lag.)
  const lapsed = (state: KeyState, now: number) => earliestStart(state) <= now;

  function sweep(): void {
    const now = performance.now();
    for (const [id, state] of keys) if (isIdle(state) && lapsed(state, now)) keys.delete(id);
    if (keys.size === 0 && sweeper !== undefined) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  }

  /** A key became idle: forget it now if nothing about it still matters, or let the sweeper forget it later. */
  function settleIdle(id: string, state: KeyState): void {
    if (!isIdle(state) || keys.get(id) !== state) return;
    if (lapsed(state, performance.now())) {
      keys.delete(id);
      return;
    }
    if (sweeper === undefined) {
      sweeper = setInterval(sweep, interval * 2);
      (sweeper as { unref?: () => void }).unref?.();
    }
  }

  /** Drops the key's pending p-throttle turn and its timers, for a fresh gate. */
  function resetGate(state: KeyState): void {
    state.gateController.abort();
    freshGate(state);
  }

  /** Wakes every turn waiting on the key's requests in flight. */
  function wakeAll(state: KeyState): void {
    // Copied first (a woken turn may listen again), but only when someone listens: most releases wake nobody.
    if (state.releaseListeners.size === 0) return;
    for (const wake of [...state.releaseListeners]) wake();
  }

  /** A key's p-throttle gate, stopped by its controller's abort. */
  function gateOf(controller: AbortController): KeyState['slot'] {
    const gate = pThrottle({ limit: 1, interval: interval + margin, strict: true, signal: controller.signal });
    return gate(async () => {});
  }

  function freshGate(state: Pick<KeyState, 'slot' | 'clockOffset' | 'gateController'>): void {
    state.gateController = new AbortController();
    state.slot = gateOf(state.gateController);
    state.clockOffset = wallClockOffset();
  }

  function stateFor(id: string): KeyState {
    let state = keys.get(id);
    if (!state) {
      // The gate made once, here (not a placeholder replaced at once by `freshGate`): a limiter of 10,000 keys holds
      // one controller and one gate per key (issue 29, item 8).
      const gateController = new AbortController();
      state = {
        slot: gateOf(gateController),
        gateController,
        clockOffset: wallClockOffset(),
        waiters: new FifoWaiters(),
        slotPending: false,
        lastStart: Number.NEGATIVE_INFINITY,
        inFlight: new Set(),
        lastAnswered: undefined,
        arrivalBound: Number.NEGATIVE_INFINITY,
        releaseListeners: new Set(),
      };
      keys.set(id, state);
    }
    return state;
  }

  /** The earliest time the next request of the key may start. */
  function earliestStart(state: KeyState): number {
    for (const r of state.inFlight) if (r.held) return Number.POSITIVE_INFINITY;
    // The margin applies from the moment a request left too: arrivals jitter by more than timers do.
    let earliest = state.lastStart + interval + margin;
    const lag = learntLag(performance.now());
    if (lag >= 1) {
      // The service counts late: a request may arrive up to `lag` after it left, or at its answer if that came sooner.
      const answered = state.lastAnswered;
      if (answered) earliest = Math.max(earliest, Math.min(answered.at, answered.start + lag) + interval);
      for (const r of state.inFlight) earliest = Math.max(earliest, r.start + lag + interval);
    }
    // A request still being written may arrive at any moment: wait for its `sent()` (which wakes this turn), or assume
    // it arrived `answerWaitLimit` after its grant.
    for (const r of state.inFlight)
      if (r.leaving) earliest = Math.max(earliest, r.grantedAt + answerWaitLimit + interval);
    if (!waitForAnswer) return earliest;
    // The service counted an ended request by its answer: `interval` after that is enough.
    earliest = Math.max(earliest, state.arrivalBound + interval + 1);
    for (const { start } of state.inFlight) earliest = Math.max(earliest, start + answerWaitLimit + interval);
    return earliest;
  }

  async function grant(id: string, state: KeyState, gate: AbortSignal): Promise<void> {
    // p-throttle decides the slot; these checks make the bounds exact whatever its timer drift.
    for (
      let wait = earliestStart(state) - performance.now();
      wait > 0 && !gate.aborted;
      wait = earliestStart(state) - performance.now()
    ) {
      // With a request in flight, its release or its `sent()` can change the earliest start: wake on them too.
      await pause(Math.ceil(wait), gate, state.inFlight.size > 0 ? state.releaseListeners : undefined);
    }
    // Everyone left while this turn was being waited for; a fresh gate already serves whoever came since.
    if (gate.aborted) return;
    const waiter: Waiter | undefined = state.waiters.shift()?.value;
    // Cannot be empty here: the last waiter to leave aborts the gate (see `acquire`), which ends this turn above.
    if (!waiter) return;
    const now = performance.now();
    const request: InFlight = {
      start: now,
      grantedAt: now,
      leaving: false,
      held: waiter.hold === true,
      wasSent: false,
      previousStart: state.lastStart,
    };
    state.lastStart = request.start;
    state.inFlight.add(request);
    let released = false;
    const wakeWaiting = () => wakeAll(state);
    const release = (outcome?: SlotOutcome) => {
      if (released) return;
      released = true;
      state.inFlight.delete(request);
      if (outcome?.unused === true && !request.wasSent) {
        giveBack(id, state, request);
        return;
      }
      if (outcome?.rateLimited === true) {
        const now = performance.now();
        learnt = maxLag;
        learntAt = now;
      }
      const answeredAt = performance.now();
      if (!state.lastAnswered || request.start >= state.lastAnswered.start) {
        state.lastAnswered = { start: request.start, at: answeredAt };
      }
      state.arrivalBound = Math.max(state.arrivalBound, Math.min(performance.now(), request.start + answerWaitLimit));
      wakeWaiting();
      settleIdle(id, state);
    };
    // A busy event loop can hold a granted request for a while before fetch is called; measuring from that moment
    // keeps the next start `interval` after the request really left. A waiting turn re-reads these when it wakes.
    const sent = () => {
      if (released) return;
      request.wasSent = true;
      request.start = Math.max(request.start, performance.now());
      state.lastStart = Math.max(state.lastStart, request.start);
      if (request.leaving || request.held) {
        request.leaving = false;
        request.held = false;
        wakeWaiting();
      }
    };
    const leaving = () => {
      if (!released) request.leaving = true;
    };
    waiter.granted(Object.assign(release, { sent, leaving }));
  }

  /**
   * A grant released unused (never sent): the key's next request is spaced from the requests that did leave, not from
   * this one, and p-throttle's gate, which counted it, is replaced so it does not delay the next one for nothing.
   */
  function giveBack(id: string, state: KeyState, request: InFlight): void {
    if (state.lastStart === request.start) {
      let last = Math.max(request.previousStart, state.lastAnswered?.start ?? Number.NEGATIVE_INFINITY);
      for (const other of state.inFlight) last = Math.max(last, other.start);
      state.lastStart = last;
    }
    if (state.slotPending) resetGate(state);
    wakeAll(state);
    settleIdle(id, state);
  }

  /** The earliest start of the key's next request, finite (a held grant counts as leaving at its interval). */
  function nextStart(state: KeyState, now: number): number {
    const earliest = earliestStart(state);
    return Math.max(now, Number.isFinite(earliest) ? earliest : state.lastStart + interval + margin);
  }

  /** The key's queue, for `queueStatus()`: epoch milliseconds. */
  async function status(id: string): Promise<QueueStatus> {
    const { keyStatus } = place.value ?? (await place.load());
    const now = performance.now();
    const state = keys.get(id);
    return keyStatus(state, state ? nextStart(state, now) : now, now, wallClockOffset(), interval + margin);
  }

  /**
   * Puts `waiter` in the line of `id`; its `granted` or `failed` is called once (see {@link SlotWaiter}). A call with a
   * deadline leaves the line at once, failed with a `QueueTimeoutError`, when its start with every call ahead staying
   * would come later, and otherwise when the deadline passes (plus `margin`, the tolerance of a grant's timer) while it
   * still waits. Without a signal or a deadline the line holds the waiter's own record and nothing more: no listener,
   * timer, closure or promise per waiting call (issue 29, item 8).
   */
  function enqueue(id: string, waiter: Waiter, signal: AbortSignal | undefined, options?: AcquireOptions): void {
    // Not throwIfAborted(): a signal from another realm or a polyfill may lack it.
    if (signal?.aborted) {
      waiter.failed(signal.reason);
      return;
    }
    // A call that tells a priority, a deadline or onQueued needs the priority queue and the place in line: imported on
    // first use (a chunk that failed to load fails the call); calls waiting for it join the line in their order.
    const loaded = place.value;
    if (options && !loaded) {
      place.load().then(
        () => enqueue(id, waiter, signal, options),
        (error: unknown) => waiter.failed(error),
      );
      return;
    }
    const state = stateFor(id);
    const queue = options && loaded?.prioritised(state);
    // Without a signal or a deadline nothing ends the wait but the grant: the line holds the waiter itself.
    const watched =
      signal === undefined && options?.deadline === undefined ? undefined : new Watched(waiter, id, state, signal);
    const entry = (queue ?? state.waiters).enter(watched ?? waiter, options?.priority ?? 'normal');
    if (watched) {
      watched.entry = entry;
      signal?.addEventListener('abort', watched, { once: true });
    }
    // The key's next start (epoch ms), then one every interval + margin: where the call stands, its deadline (which
    // only a watched waiter has: its `failed` leaves the line).
    if (queue) {
      const timer = (loaded as QueuePlace).checkQueued(
        queue,
        entry,
        options as AcquireOptions,
        nextStart(state, performance.now()) + wallClockOffset(),
        interval + margin,
        margin,
        (reason) => entry.value.failed(reason),
      );
      if (watched) watched.timer = timer;
    }
    pump(id, state);
  }

  /**
   * A waiter whose wait its signal or its deadline may end: one object, which is its abort listener too
   * (`handleEvent`), rather than a context and three closures per waiting call. `failed` leaves the line.
   */
  class Watched implements Waiter {
    timer: ReturnType<typeof setTimeout> | undefined;
    entry: QueueEntry<Waiter> | undefined;

    constructor(
      readonly waiter: Waiter,
      readonly id: string,
      readonly state: KeyState,
      readonly signal: AbortSignal | undefined,
    ) {}

    get hold(): boolean | undefined {
      return this.waiter.hold;
    }

    handleEvent(): void {
      this.failed(this.signal?.reason);
    }

    granted(release: ReleaseSlot): void {
      this.#unwatch();
      this.waiter.granted(release);
    }

    failed(reason: unknown): void {
      this.#unwatch();
      const { state } = this;
      if (this.entry) state.waiters.delete(this.entry);
      // The last waiter left: drop the pending turn and its timers, so nothing keeps the process alive.
      if (state.waiters.size === 0 && state.slotPending) resetGate(state);
      this.waiter.failed(reason);
      settleIdle(this.id, state);
    }

    #unwatch(): void {
      clearTimeout(this.timer);
      this.signal?.removeEventListener('abort', this);
    }
  }

  /** {@link enqueue} as a promise: the grant, or a rejection with why there is none. */
  function acquireOne(
    id: string,
    signal: AbortSignal | undefined,
    hold: boolean,
    options?: AcquireOptions,
  ): Promise<ReleaseSlot> {
    return new Promise<ReleaseSlot>((resolve, reject) =>
      enqueue(id, { hold, granted: resolve, failed: reject }, signal, options),
    );
  }

  function pump(id: string, state: KeyState): void {
    if (state.slotPending || state.waiters.size === 0) return;
    // A wall clock stepped back (NTP, a resumed VM) would make p-throttle wait for the step: start a fresh gate.
    if (Math.abs(wallClockOffset() - state.clockOffset) > interval) freshGate(state);
    state.slotPending = true;
    const gate = state.gateController.signal;
    void state
      .slot()
      .then(
        () => grant(id, state, gate),
        () => {}, // the gate was aborted: its pending slot is dropped
      )
      .finally(() => {
        state.slotPending = false;
        pump(id, state);
        settleIdle(id, state);
      });
  }

  const limiter: ProcessRateLimiter & LocalLimiter = {
    get keyCount() {
      return keys.size;
    },
    acquire: (id, signal, options) => acquireOne(id, signal, false, options),
    [ACQUIRE_HELD]: acquireOne,
    // On the limiter itself only: a wrapper that copied it (to record, to count) is asked through its own acquire.
    [ENQUEUE](id, waiter, signal, options) {
      if (this !== limiter) return false;
      enqueue(id, waiter, signal, options);
      return true;
    },
    [QUEUE_STATUS]: (keyIds) => Promise.all(keyIds.map(status)),
    [WAITING_COUNTS]: (id: string) => (keys.get(id)?.waiters ?? new FifoWaiters()).counts(),
  };
  Object.defineProperty(limiter, HONORS_ABORT, { value: true });
  return limiter;
}

const SHARED = Symbol.for('invoicing-service-sdk.process-rate-limiter');

/**
 * The limiter shared by every client of this process, created on first use (never at import, so no timer or state
 * exists in runtimes that forbid global work). It is kept under a registered symbol on `globalThis`, so that the ESM and
 * CJS copies of the SDK, loaded side by side, still share one limit per key.
 */
export function sharedRateLimiter(): RateLimiter {
  const holder = globalThis as { [SHARED]?: RateLimiter };
  holder[SHARED] ??= createProcessRateLimiter();
  return holder[SHARED];
}
