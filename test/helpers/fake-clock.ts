import { setImmediate as realTurn } from 'node:timers/promises';
import { vi } from 'vitest';

/**
 * Throttle tests run on a fake clock: `setTimeout`, `Date` and `performance` are faked, so the limiter's waits take no
 * real time and every time a test reads is exact, whatever the load on the machine. (Real-time assertions on spacing
 * failed under load on 2-core CI machines: a timer fired late, or the first request spent 90 ms in JIT warm-up between
 * its turn and its fetch.) `setImmediate` stays real so that work outside the clock (Web Crypto, body streams) can finish.
 */
export function useFakeClock(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
}

/** What `runOnFakeClock` is told about the traffic it must not race. */
export interface FakeClockOptions {
  /**
   * While this returns true (a request or an answer is on its way between a real loopback server and the client), the
   * clock stands still: a timeout cuts only what the server holds on purpose, never an answer the machine is slow to
   * deliver. Such a hold is guarded by real time (`holdGuardMs`), only against hangs.
   */
  readonly holdWhile?: () => boolean;
  /** @default 30000 */
  readonly holdGuardMs?: number;
}

/**
 * Moves the fake clock forward 1 ms at a time, letting real work finish between steps, until `work` settles.
 * Bounded: fails after `maxMs` of fake time instead of spinning forever.
 */
export async function runOnFakeClock<T>(work: Promise<T>, maxMs = 30_000, options: FakeClockOptions = {}): Promise<T> {
  const { holdWhile = () => false, holdGuardMs = 30_000 } = options;
  let settled = false;
  const watched = work.finally(() => {
    settled = true;
  });
  watched.catch(() => {});
  for (let elapsed = 0; !settled; elapsed += 1) {
    if (elapsed > maxMs) throw new Error(`still pending after ${maxMs} ms of fake time`);
    await realTurn();
    // process.hrtime is not faked: the guard is real time, and only a hang reaches it.
    const heldSince = process.hrtime.bigint();
    while (!settled && holdWhile()) {
      if (process.hrtime.bigint() - heldSince > BigInt(holdGuardMs) * 1_000_000n) {
        throw new Error(`traffic still on its way after ${holdGuardMs} ms of real time`);
      }
      await realTurn();
    }
    await vi.advanceTimersByTimeAsync(1);
  }
  return watched;
}

/** Moves the fake clock forward `ms`, 1 ms at a time, letting real work finish between steps. */
export async function elapse(ms: number): Promise<void> {
  for (let i = 0; i < ms; i += 1) {
    await realTurn();
    await vi.advanceTimersByTimeAsync(1);
  }
}
