import { createProcessRateLimiter } from 'invoicing-service-sdk';
import { describe, expect, it, vi } from 'vitest';

const since = (t0: number) => performance.now() - t0;

describe('the process rate limiter at its edges', () => {
  it('with answerWaitLimit: Infinity waits for the answer without spinning, then grants', async () => {
    const limiter = createProcessRateLimiter({ answerWaitLimit: Number.POSITIVE_INFINITY });
    const release = await limiter.acquire('k-infinity');
    const t0 = performance.now();
    const next = limiter.acquire('k-infinity');
    const cpu0 = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const cpuMs = (process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 1000;
    release?.();
    await next;
    expect(since(t0)).toBeGreaterThanOrEqual(2500); // the answer came at 1.5 s, then 1 s more
    expect(cpuMs).toBeLessThan(500); // it slept; a 1 ms polling loop burns far more
  });

  it('is not held up when the wall clock steps back', async () => {
    const limiter = createProcessRateLimiter({ waitForAnswer: false });
    await limiter.acquire('k-clock');
    const realNow = Date.now;
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => realNow() - 3_600_000);
    try {
      const t0 = performance.now();
      await limiter.acquire('k-clock', AbortSignal.timeout(5000));
      expect(since(t0)).toBeLessThan(3000);
      expect(since(t0)).toBeGreaterThanOrEqual(990);
    } finally {
      spy.mockRestore();
    }
  });

  it('does not make the next caller pay for the turn of a caller who aborted alone in the queue', async () => {
    const limiter = createProcessRateLimiter({ waitForAnswer: false });
    await limiter.acquire('k-abort');
    const controller = new AbortController();
    const aborted = limiter.acquire('k-abort', controller.signal).catch((e: unknown) => e);
    controller.abort('changed my mind');
    expect(await aborted).toBe('changed my mind');
    await new Promise((resolve) => setTimeout(resolve, 1300)); // the aborted turn would have fired at ~1025 ms
    const t0 = performance.now();
    await limiter.acquire('k-abort');
    expect(since(t0)).toBeLessThan(500);
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
