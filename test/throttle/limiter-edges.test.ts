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
    const limiter = createProcessRateLimiter({ answerWaitLimit: Number.POSITIVE_INFINITY, waitForAnswer: true });
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

  it('holds the 1000 ms bound plus its margin when p-throttle fires early (its wall clock ran ahead)', async () => {
    const limiter = createProcessRateLimiter({ waitForAnswer: false });
    const t0 = await runOnFakeClock(grantTime(limiter.acquire('k-early')));
    // p-throttle reads Date.now(): a wall clock 40 ms ahead makes its slot fire 40 ms early (about 985 ms after the
    // first), as real timers were measured to do by up to ~11 ms. The limiter's monotonic check must hold the bound.
    vi.setSystemTime(Date.now() + 40);
    const t1 = await runOnFakeClock(grantTime(limiter.acquire('k-early')));
    expect(t1 - t0).toBeGreaterThanOrEqual(1025);
    expect(t1 - t0).toBeLessThan(1035);
  });

  it('measures from the moment the client says the request left (sent), when a busy event loop delayed it', async () => {
    const limiter = createProcessRateLimiter({ waitForAnswer: false });
    let release: Awaited<ReturnType<typeof limiter.acquire>>;
    const granted = await runOnFakeClock(
      limiter.acquire('k-sent').then((r) => {
        release = r;
        return performance.now();
      }),
    );
    await elapse(300); // the granted request waited 300 ms for the event loop before fetch was called
    if (typeof release !== 'function') throw new Error('expected a release function');
    release.sent?.();
    const next = await runOnFakeClock(grantTime(limiter.acquire('k-sent')));
    expect(next - granted).toBeGreaterThanOrEqual(1300); // 1000 ms after it left, not after its grant
    expect(next - granted).toBeLessThan(1400);
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

  it('leaves no timer behind once every queued caller has aborted, so nothing keeps the process alive', async () => {
    const limiter = createProcessRateLimiter({ waitForAnswer: true });
    let release: (() => void) | undefined;
    const first = await runOnFakeClock(
      limiter.acquire('k-leave').then((r) => {
        release = r ?? undefined;
        return performance.now();
      }),
    );
    const controllers = [new AbortController(), new AbortController()];
    const queued = controllers.map((c) => limiter.acquire('k-leave', c.signal).catch((e: unknown) => e));
    await elapse(10);
    expect(vi.getTimerCount()).toBeGreaterThan(0); // the next turn is being waited for
    for (const c of controllers) c.abort('shutting down');
    expect(await Promise.all(queued)).toEqual(['shutting down', 'shutting down']);
    expect(vi.getTimerCount()).toBe(0);
    release?.(); // answered at first + 10 ms
    // The bound still holds for a caller who comes later: 1000 ms after that answer, not sooner, not a turn later.
    const next = await runOnFakeClock(grantTime(limiter.acquire('k-leave')));
    expect(next - first).toBeGreaterThanOrEqual(1010);
    expect(next - first).toBeLessThan(1100);
  });

  it('leaves no timer behind when the last waiter aborts during the wait after its p-throttle slot', async () => {
    // p-throttle's slot comes at ~1025 ms; the wait for the answer (answerWaitLimit 3000) keeps the turn longer.
    const limiter = createProcessRateLimiter({ answerWaitLimit: 3000, waitForAnswer: true });
    const first = await runOnFakeClock(grantTime(limiter.acquire('k-late')));
    const controller = new AbortController();
    const queued = limiter.acquire('k-late', controller.signal).catch((e: unknown) => e);
    await elapse(1500); // past the slot, inside the wait for the answer
    expect(vi.getTimerCount()).toBeGreaterThan(0);
    controller.abort('gone');
    expect(await queued).toBe('gone');
    expect(vi.getTimerCount()).toBe(0);
    // A newcomer still waits out the bound measured from the first start (answerWaitLimit + interval).
    const next = await runOnFakeClock(grantTime(limiter.acquire('k-late')));
    expect(next - first).toBeGreaterThanOrEqual(4000);
    expect(next - first).toBeLessThan(4100);
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
