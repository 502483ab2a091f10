import pThrottle from 'p-throttle';
import type { ProcessRateLimiterOptions } from './process-rate-limiter-options.js';
import type { RateLimiter, ReleaseSlot } from './rate-limiter.js';

interface Waiter {
  resolve(release: ReleaseSlot): void;
}

interface KeyState {
  /** p-throttle's gate: one call of it is one slot. Replaced when it could delay the key for nothing. */
  slot: () => Promise<void>;
  /** `Date.now() - performance.now()` when the gate was made: p-throttle runs on the wall clock. */
  clockOffset: number;
  /** Callers waiting for a slot, first come first served. */
  waiters: Waiter[];
  /** Whether a slot has been asked of p-throttle and has not fired yet. */
  slotPending: boolean;
  /** `performance.now()` at the last start granted, or -Infinity. */
  lastStart: number;
  /** Start times of the requests started and not yet released. */
  inFlight: Set<number>;
  /** The latest time by which an ended request had reached the service, as far as the client can tell. */
  arrivalBound: number;
  /** Woken at each release. */
  releaseListeners: Set<() => void>;
}

// setTimeout fires at once for delays above 2^31-1 ms; no wait here is meant to be that long.
const MAX_TIMER_MS = 2_147_483_647;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.min(ms, MAX_TIMER_MS)));
const wallClockOffset = () => Date.now() - performance.now();

function checkOption(name: string, value: number, min: number, allowInfinity = false): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < min || (!allowInfinity && !Number.isFinite(value))) {
    throw new TypeError(`createProcessRateLimiter: ${name} must be a number >= ${min}; got ${String(value)}`);
  }
  return value;
}

/**
 * An in-process {@link RateLimiter}: per key, a FIFO queue in front of a p-throttle gate
 * (`limit: 1`, strict). Only the head of the queue holds a pending p-throttle slot, so a caller that aborts
 * while queued leaves at once and its turn passes to the next one. A monotonic-clock check guarantees
 * that no two starts of one key are less than `interval` apart, and (by default) that a request starts at least
 * `interval` after the previous request's answer. Idle keys are dropped, so a multi-tenant
 * process with many keys does not grow without bound. Nothing runs and no timer exists while idle.
 * @throws {TypeError} when an option is not a number in its range.
 */
export function createProcessRateLimiter(options: ProcessRateLimiterOptions = {}): RateLimiter {
  const interval = checkOption('interval', options.interval ?? 1000, 1);
  const margin = checkOption('margin', options.margin ?? 25, 0);
  const waitForAnswer = options.waitForAnswer ?? true;
  const answerWaitLimit = checkOption('answerWaitLimit', options.answerWaitLimit ?? 1000, 0, true);
  const keys = new Map<string, KeyState>();
  let lastSweep = performance.now();

  function sweep(now: number): void {
    if (now - lastSweep < interval * 10) return;
    lastSweep = now;
    for (const [id, state] of keys) {
      const idle = !state.slotPending && state.waiters.length === 0 && state.inFlight.size === 0;
      if (idle && now - Math.max(state.lastStart, state.arrivalBound) > interval * 2) keys.delete(id);
    }
  }

  function freshGate(state: Pick<KeyState, 'slot' | 'clockOffset'>): void {
    const gate = pThrottle({ limit: 1, interval: interval + margin, strict: true });
    state.slot = gate(async () => {});
    state.clockOffset = wallClockOffset();
  }

  function stateFor(id: string): KeyState {
    let state = keys.get(id);
    if (!state) {
      state = {
        slot: async () => {},
        clockOffset: 0,
        waiters: [],
        slotPending: false,
        lastStart: Number.NEGATIVE_INFINITY,
        inFlight: new Set(),
        arrivalBound: Number.NEGATIVE_INFINITY,
        releaseListeners: new Set(),
      };
      freshGate(state);
      keys.set(id, state);
    }
    return state;
  }

  /** Resolves at the next release of the key, or after `ms` (never, for an infinite `ms`). */
  function nextRelease(state: KeyState, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        state.releaseListeners.delete(wake);
        resolve();
      };
      const timer = Number.isFinite(ms) ? setTimeout(wake, Math.min(ms, MAX_TIMER_MS)) : undefined;
      state.releaseListeners.add(wake);
    });
  }

  /** The earliest time the next request of the key may start. */
  function earliestStart(state: KeyState): number {
    let earliest = state.lastStart + interval;
    if (!waitForAnswer) return earliest;
    // The service counted an ended request by its answer: `interval` after that is enough.
    earliest = Math.max(earliest, state.arrivalBound + interval + 1);
    for (const start of state.inFlight) earliest = Math.max(earliest, start + answerWaitLimit + interval);
    return earliest;
  }

  async function grant(state: KeyState): Promise<void> {
    // p-throttle decides the slot; these checks make the bounds exact whatever its timer drift.
    for (
      let wait = earliestStart(state) - performance.now();
      wait > 0;
      wait = earliestStart(state) - performance.now()
    ) {
      await (state.inFlight.size > 0 ? nextRelease(state, Math.ceil(wait)) : sleep(Math.ceil(wait)));
    }
    const waiter = state.waiters.shift();
    if (!waiter) {
      // Everyone left while the slot was pending. p-throttle counted the slot anyway; a fresh gate keeps the next
      // caller from paying for it (the checks above still hold the bound).
      freshGate(state);
      return;
    }
    const start = performance.now();
    state.lastStart = start;
    state.inFlight.add(start);
    let released = false;
    waiter.resolve(() => {
      if (released) return;
      released = true;
      state.inFlight.delete(start);
      state.arrivalBound = Math.max(state.arrivalBound, Math.min(performance.now(), start + answerWaitLimit));
      for (const wake of [...state.releaseListeners]) wake();
    });
  }

  function pump(state: KeyState): void {
    if (state.slotPending || state.waiters.length === 0) return;
    // A wall clock stepped back (NTP, a resumed VM) would make p-throttle wait for the step: start a fresh gate.
    if (Math.abs(wallClockOffset() - state.clockOffset) > interval) freshGate(state);
    state.slotPending = true;
    void state
      .slot()
      .then(() => grant(state))
      .finally(() => {
        state.slotPending = false;
        pump(state);
      });
  }

  return {
    acquire(id, signal) {
      signal?.throwIfAborted();
      sweep(performance.now());
      const state = stateFor(id);
      return new Promise<ReleaseSlot>((resolve, reject) => {
        const onAbort = () => {
          const index = state.waiters.indexOf(waiter);
          if (index !== -1) state.waiters.splice(index, 1);
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          resolve: (release) => {
            signal?.removeEventListener('abort', onAbort);
            resolve(release);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        state.waiters.push(waiter);
        pump(state);
      });
    },
  };
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
