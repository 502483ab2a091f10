// Issue 9, findings 6 and 7: idle keys are freed without another call, nothing keeps the process alive, and a mass
// abort of one key's queue is linear.
import { createProcessRateLimiter, type ReleaseSlot } from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { elapse, runOnFakeClock, useFakeClock } from '../helpers/fake-clock.js';

describe('idle keys', () => {
  beforeEach(() => useFakeClock());
  afterEach(() => vi.useRealTimers());

  it('are forgotten within about 2 × interval of their last answer, without another call', async () => {
    const limiter = createProcessRateLimiter();
    const releases: ReleaseSlot[] = [];
    for (let i = 0; i < 1000; i++) {
      const release = await runOnFakeClock(limiter.acquire(`key-${i}`));
      if (release) releases.push(release);
    }
    expect(limiter.keyCount).toBe(1000);
    for (const release of releases) release();
    expect(limiter.keyCount).toBe(1000); // answered just now: the next start of each key must still wait
    await vi.advanceTimersByTimeAsync(4_100);
    expect(limiter.keyCount).toBe(0);
    // With no key left, the sweeper is gone too.
    expect(vi.getTimerCount()).toBe(0);
  });

  // A key forgotten while its next start is still ahead would lose its spacing: its next call would start at once.
  // The key's next start is its last start + interval + margin (1025 ms here); the old rule forgot it after 1000 ms.
  it('are not forgotten by the sweeper while their next start is still ahead', async () => {
    const limiter = createProcessRateLimiter();
    const first = await runOnFakeClock(limiter.acquire('starts-the-sweeper'));
    first?.sent?.();
    first?.(); // idle, not lapsed: the sweeper starts, and sweeps every 2000 ms from now
    const sweptAt = performance.now() + 2000;
    await vi.advanceTimersByTimeAsync(990);
    const other = await runOnFakeClock(limiter.acquire('spaced'));
    const left = performance.now();
    other?.sent?.();
    other?.();
    // The sweep runs 1010 ms after 'spaced' left: past interval, before interval + margin.
    await vi.advanceTimersByTimeAsync(sweptAt - performance.now());
    expect(sweptAt - left).toBeGreaterThan(1000);
    expect(sweptAt - left).toBeLessThan(1025);
    const next = await runOnFakeClock(limiter.acquire('spaced'));
    expect(performance.now() - left).toBeGreaterThanOrEqual(1025);
    next?.();
  });

  it('are not forgotten when the last waiter leaves while their next start is still ahead', async () => {
    const limiter = createProcessRateLimiter();
    const first = await runOnFakeClock(limiter.acquire('k'));
    const left = performance.now();
    first?.sent?.();
    first?.();
    const controller = new AbortController();
    const waiting = limiter.acquire('k', controller.signal).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1010);
    controller.abort('gone'); // 1010 ms after the first request left: its next start (1025) is still ahead
    expect(await waiting).toBe('gone');
    await elapse(1);
    const next = await runOnFakeClock(limiter.acquire('k'));
    expect(performance.now() - left).toBeGreaterThanOrEqual(1025);
    next?.();
  });

  it('a key whose only caller aborted before its first start is forgotten at once', async () => {
    const limiter = createProcessRateLimiter();
    const controller = new AbortController();
    const pending = limiter.acquire('fresh', controller.signal).catch((e: unknown) => e);
    controller.abort('gone');
    expect(await pending).toBe('gone');
    await elapse(2);
    expect(limiter.keyCount).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("the sweeper's timer never keeps the process alive", async () => {
    vi.useRealTimers();
    // The sweeper is the limiter's only setInterval: watch for it (the spy calls through) and ask the timer itself
    // whether it holds the process. A long interval keeps the key held however late this process runs; the sweep
    // itself is checked on the fake clock above.
    const intervals = vi.spyOn(globalThis, 'setInterval');
    try {
      const limiter = createProcessRateLimiter({ interval: 60_000 });
      const release = await limiter.acquire('k');
      release?.();
      await new Promise((resolve) => setImmediate(resolve)); // the turn's bookkeeping ends in a later microtask
      expect(limiter.keyCount).toBe(1); // held, so the sweeper runs
      const sweepers = intervals.mock.calls.flatMap((call, i) =>
        call[1] === 120_000 ? [intervals.mock.results[i]?.value as NodeJS.Timeout] : [],
      );
      expect(sweepers).toHaveLength(1);
      expect(sweepers[0]?.hasRef()).toBe(false);
      clearInterval(sweepers[0]);
    } finally {
      intervals.mockRestore();
    }
  });
});

describe('aborting a long queue of one key', () => {
  it('rejects every queued call with its reason, and the next caller is served', async () => {
    const limiter = createProcessRateLimiter({ interval: 20, margin: 0 });
    const first = await limiter.acquire('crowd');
    const controllers = Array.from({ length: 50_000 }, () => new AbortController());
    const queued = controllers.map((c) =>
      limiter.acquire('crowd', c.signal).then(
        () => 'granted',
        (e: unknown) => e,
      ),
    );
    // Abort from the back, the worst order for an array-based queue.
    for (let i = controllers.length - 1; i >= 0; i--) controllers[i]?.abort(`gone ${i}`);
    const outcomes = await Promise.all(queued);
    expect(outcomes.every((o, i) => o === `gone ${i}`)).toBe(true);
    first?.();
    const next = await limiter.acquire('crowd');
    expect(typeof next).toBe('function');
    next?.();
  });
});
