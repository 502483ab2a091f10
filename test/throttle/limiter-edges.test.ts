import { createProcessRateLimiter } from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { elapse, runOnFakeClock, useFakeClock } from '../helpers/fake-clock.js';

const since = (t0: number) => performance.now() - t0;
/** The fake time at which `acquire` granted (read in the same turn, so no clock step can slip in between). */
const grantTime = (acquired: Promise<unknown>) => acquired.then(() => performance.now());

beforeEach(useFakeClock);
afterEach(() => vi.useRealTimers());

describe('the process rate limiter at its edges', () => {
  it('with answerWaitLimit: Infinity waits for the answer without spinning, then grants', async () => {
    const limiter = createProcessRateLimiter({ answerWaitLimit: Number.POSITIVE_INFINITY });
    const release = await runOnFakeClock(limiter.acquire('k-infinity'));
    const t0 = performance.now();
    let granted = false;
    const next = limiter.acquire('k-infinity').then((r) => {
      granted = true;
      return r;
    });
    await elapse(1500);
    // While the answer is outstanding the limiter waits on the release, not on a timer: none is pending
    // (a polling loop would always have one).
    expect(vi.getTimerCount()).toBe(0);
    expect(granted).toBe(false);
    release?.();
    await runOnFakeClock(next);
    expect(since(t0)).toBeGreaterThanOrEqual(2500); // the answer came at 1.5 s, then 1 s more
    expect(since(t0)).toBeLessThan(2600);
  });

  it('holds the 1000 ms bound when p-throttle fires early (its wall clock ran ahead of the monotonic one)', async () => {
    const limiter = createProcessRateLimiter({ waitForAnswer: false });
    const t0 = await runOnFakeClock(grantTime(limiter.acquire('k-early')));
    // p-throttle reads Date.now(): a wall clock 40 ms ahead makes its slot fire 40 ms early (about 985 ms after the
    // first), as real timers were measured to do by up to ~11 ms. The limiter's monotonic check must hold the bound.
    vi.setSystemTime(Date.now() + 40);
    const t1 = await runOnFakeClock(grantTime(limiter.acquire('k-early')));
    expect(t1 - t0).toBeGreaterThanOrEqual(1000);
    expect(t1 - t0).toBeLessThan(1010);
  });

  it('is not held up when the wall clock steps back', async () => {
    const limiter = createProcessRateLimiter({ waitForAnswer: false });
    const t0 = await runOnFakeClock(grantTime(limiter.acquire('k-clock')));
    vi.setSystemTime(Date.now() - 3_600_000); // the wall clock steps back an hour; the monotonic clock does not
    const t1 = await runOnFakeClock(grantTime(limiter.acquire('k-clock')), 5000);
    expect(t1 - t0).toBeGreaterThanOrEqual(1000);
    expect(t1 - t0).toBeLessThan(1100);
  });

  it('does not make the next caller pay for the turn of a caller who aborted alone in the queue', async () => {
    const limiter = createProcessRateLimiter({ waitForAnswer: false });
    await runOnFakeClock(limiter.acquire('k-abort'));
    const controller = new AbortController();
    const aborted = limiter.acquire('k-abort', controller.signal).catch((e: unknown) => e);
    controller.abort('changed my mind');
    expect(await aborted).toBe('changed my mind');
    await elapse(1300); // the aborted turn would have fired at ~1025 ms
    const t0 = performance.now();
    await runOnFakeClock(limiter.acquire('k-abort'));
    expect(since(t0)).toBeLessThan(5);
  });

  it.each([
    [{ interval: 0 }, /interval/],
    [{ margin: -1 }, /margin/],
    [{ answerWaitLimit: Number.NaN }, /answerWaitLimit/],
    [{ interval: Number.POSITIVE_INFINITY }, /interval/],
  ])('rejects the option %o with a TypeError', (options, message) => {
    expect(() => createProcessRateLimiter(options)).toThrow(message);
  });
});
