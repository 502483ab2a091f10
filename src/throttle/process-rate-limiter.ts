import pThrottle from 'p-throttle';
import type { RateLimiter } from './rate-limiter.js';

/** Options of {@link createProcessRateLimiter}. */
export interface ProcessRateLimiterOptions {
  /**
   * The least time between the starts of two requests of one key, in milliseconds.
   * @default 1000 (the service's limit: 1 request per second per key)
   */
  interval?: number;
  /**
   * Extra milliseconds added to p-throttle's interval: p-throttle's strict mode was measured starting calls
   * up to about 11 ms early in bursts. The bound itself is also enforced by a monotonic-clock check.
   * @default 25
   */
  margin?: number;
}

interface Waiter {
  resolve(): void;
}

interface KeyState {
  /** p-throttle's gate: one call of it is one slot. */
  slot: () => Promise<void>;
  /** Callers waiting for a slot, first come first served. */
  waiters: Waiter[];
  /** Whether a slot has been asked of p-throttle and has not fired yet. */
  slotPending: boolean;
  /** `performance.now()` at the last start granted, or -Infinity. */
  lastStart: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * An in-process {@link RateLimiter}: per key, a FIFO queue in front of a p-throttle gate
 * (`limit: 1`, strict). Only the head of the queue holds a pending p-throttle slot, so a caller that aborts
 * while queued leaves at once and its turn passes to the next one. A monotonic-clock check guarantees
 * that no two starts of one key are less than `interval` apart. Idle keys are dropped, so a multi-tenant
 * process with many keys does not grow without bound. Nothing runs and no timer exists while idle.
 */
export function createProcessRateLimiter(options: ProcessRateLimiterOptions = {}): RateLimiter {
  const interval = options.interval ?? 1000;
  const margin = options.margin ?? 25;
  const keys = new Map<string, KeyState>();
  let lastSweep = performance.now();

  function sweep(now: number): void {
    if (now - lastSweep < interval * 10) return;
    lastSweep = now;
    for (const [id, state] of keys) {
      if (!state.slotPending && state.waiters.length === 0 && now - state.lastStart > interval * 2) keys.delete(id);
    }
  }

  function stateFor(id: string): KeyState {
    let state = keys.get(id);
    if (!state) {
      const gate = pThrottle({ limit: 1, interval: interval + margin, strict: true });
      state = { slot: gate(async () => {}), waiters: [], slotPending: false, lastStart: Number.NEGATIVE_INFINITY };
      keys.set(id, state);
    }
    return state;
  }

  async function grant(state: KeyState): Promise<void> {
    // p-throttle decides the slot; this check makes the bound exact whatever its timer drift.
    const early = state.lastStart + interval - performance.now();
    if (early > 0) await sleep(Math.ceil(early));
    const waiter = state.waiters.shift();
    if (!waiter) return; // everyone left while the slot was pending: the slot lapses
    state.lastStart = performance.now();
    waiter.resolve();
  }

  function pump(state: KeyState): void {
    if (state.slotPending || state.waiters.length === 0) return;
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
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const index = state.waiters.indexOf(waiter);
          if (index !== -1) state.waiters.splice(index, 1);
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
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
