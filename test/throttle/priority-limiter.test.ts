// The in-process limiter's queue by priority, with deadlines and a visible queue (issue 30), on a fake clock: the
// tests assert the order and the count of grants, and times the fake clock makes exact, never wall time.
import { createProcessRateLimiter, type Priority, QueueTimeoutError } from 'invoicing-service-sdk';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { QUEUE_STATUS, type QueuedInfo, type QueueStatus } from '../../src/throttle/queue-options.js';
import { queuePlace } from '../../src/throttle/queue-place-lazy.js';
import { elapse, runOnFakeClock, useFakeClock } from '../helpers/fake-clock.js';

// The priority queue is imported on the first call that tells a priority (src/throttle/queue-place-lazy.ts). Loaded
// before the fake clock starts: otherwise its import, which takes real time, passes as fake time while the tests'
// first calls wait for it (a low call made first was still waiting when a high one came, and the high one went first:
// right by priority, but not the order these tests set up).
beforeAll(async () => {
  await queuePlace.load();
});
beforeEach(useFakeClock);
afterEach(() => vi.useRealTimers());

type Limiter = ReturnType<typeof createProcessRateLimiter>;

/** Queues `name` and records when (fake time) it was granted; releases at once, as a request answered at once would. */
function queue(
  limiter: Limiter,
  key: string,
  name: string,
  granted: { name: string; at: number }[],
  options: { priority?: Priority; deadline?: number; onQueued?: (info: QueuedInfo) => void; signal?: AbortSignal } = {},
) {
  const { signal, ...rest } = options;
  return limiter.acquire(key, signal, rest).then((release) => {
    granted.push({ name, at: Date.now() });
    if (typeof release === 'function') {
      release.sent?.();
      release();
    }
  });
}

describe('the process limiter by priority', () => {
  it('grants a high call made behind 200 low ones next, and the low ones after it in their order', async () => {
    const limiter = createProcessRateLimiter();
    const granted: { name: string; at: number }[] = [];
    const lows = Array.from({ length: 200 }, (_, i) => queue(limiter, 'k', `low${i}`, granted, { priority: 'low' }));
    await elapse(10);
    const high = queue(limiter, 'k', 'high', granted, { priority: 'high' });
    await runOnFakeClock(high);
    expect(granted.map((g) => g.name)).toEqual(['low0', 'high']);
    await runOnFakeClock(Promise.all(lows), 300_000);
    expect(granted.map((g) => g.name)).toEqual([
      'low0',
      'high',
      ...Array.from({ length: 199 }, (_, i) => `low${i + 1}`),
    ]);
    for (let i = 1; i < granted.length; i++) {
      expect((granted[i] as { at: number }).at - (granted[i - 1] as { at: number }).at).toBeGreaterThanOrEqual(1000);
    }
  }, 60_000);

  it('never keeps a waiting low call out for more than 10 slots under a steady stream of high calls', async () => {
    const limiter = createProcessRateLimiter();
    const granted: { name: string; at: number }[] = [];
    const calls = [queue(limiter, 'k', 'high-first', granted, { priority: 'high' })];
    calls.push(queue(limiter, 'k', 'low', granted, { priority: 'low' }));
    // One new high call for every grant, always waiting before the next slot.
    for (let i = 0; i < 20; i++) {
      calls.push(queue(limiter, 'k', `high${i}`, granted, { priority: 'high' }));
      await runOnFakeClock(
        new Promise<void>((resolve) => {
          const seen = granted.length;
          const check = () => (granted.length > seen ? resolve() : setTimeout(check, 1));
          check();
        }),
      );
    }
    await runOnFakeClock(Promise.all(calls), 60_000);
    const slot = granted.findIndex((g) => g.name === 'low');
    // Both first calls waited for the key's first turn: high-first and 8 more highs passed over the low (9 grants in
    // all), the 10th slot is the low's.
    expect(slot).toBe(9);
  });

  it('rejects at once with QUEUE_TIMEOUT when 10 calls ahead would keep it past its deadline, and grants it nothing', async () => {
    const limiter = createProcessRateLimiter();
    const granted: { name: string; at: number }[] = [];
    const ahead = Array.from({ length: 10 }, (_, i) => queue(limiter, 'k', `ahead${i}`, granted));
    await elapse(5);
    const madeAt = Date.now();
    const hurried = queue(limiter, 'k', 'hurried', granted, { deadline: madeAt + 2000 });
    const error = await hurried.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(Date.now()).toBe(madeAt); // no fake time passed: it did not wait for its deadline
    expect(error).toBeInstanceOf(QueueTimeoutError);
    expect(error).toMatchObject({ code: 'QUEUE_TIMEOUT', mayHaveSucceeded: false });
    expect((error as QueueTimeoutError).estimatedStartAt).toBeGreaterThan(madeAt + 2000);
    await runOnFakeClock(Promise.all(ahead), 30_000);
    expect(granted.map((g) => g.name)).toEqual(Array.from({ length: 10 }, (_, i) => `ahead${i}`));
  });

  it('rejects when its deadline passes after more urgent calls pushed it back, and never grants it', async () => {
    const limiter = createProcessRateLimiter();
    const granted: { name: string; at: number }[] = [];
    const first = queue(limiter, 'k', 'first', granted);
    await elapse(5);
    const madeAt = Date.now();
    let outcome: unknown = 'pending';
    const patient = queue(limiter, 'k', 'patient', granted, { priority: 'low', deadline: madeAt + 2500 }).then(
      () => {
        outcome = 'granted';
      },
      (e: unknown) => {
        outcome = e;
      },
    );
    const highs = Array.from({ length: 5 }, (_, i) => queue(limiter, 'k', `high${i}`, granted, { priority: 'high' }));
    await elapse(2400);
    expect(outcome).toBe('pending');
    await runOnFakeClock(patient);
    expect(outcome).toBeInstanceOf(QueueTimeoutError);
    expect((outcome as QueueTimeoutError).estimatedStartAt).toBeUndefined();
    await runOnFakeClock(Promise.all([first, ...highs]), 30_000);
    expect(granted.map((g) => g.name)).not.toContain('patient');
    expect(granted).toHaveLength(6);
  });

  it('tells a waiting call its place and expected start, which its grant meets', async () => {
    const limiter = createProcessRateLimiter();
    const granted: { name: string; at: number }[] = [];
    const infos = new Map<string, QueuedInfo>();
    const make = (name: string, priority: Priority) =>
      queue(limiter, 'k', name, granted, { priority, onQueued: (info) => infos.set(name, info) });
    const calls = [make('a', 'normal')];
    await elapse(5);
    calls.push(make('b', 'normal'), make('c', 'normal'), make('d', 'high'));
    await runOnFakeClock(Promise.all(calls), 30_000);
    expect(granted.map((g) => g.name)).toEqual(['a', 'd', 'b', 'c']);
    expect(infos.has('a')).toBe(false); // granted at once: never queued
    expect(infos.get('b')).toMatchObject({ priority: 'normal', position: 0 });
    expect(infos.get('c')).toMatchObject({ priority: 'normal', position: 1 });
    expect(infos.get('d')).toMatchObject({ priority: 'high', position: 0 });
    // d's estimate is exact (nobody came after it); b's and c's were made before d jumped ahead: one slot early.
    const at = (name: string) => (granted.find((g) => g.name === name) as { at: number }).at;
    expect(Math.abs(at('d') - (infos.get('d') as QueuedInfo).estimatedStartAt)).toBeLessThanOrEqual(2);
    expect(at('b') - (infos.get('b') as QueuedInfo).estimatedStartAt).toBeGreaterThanOrEqual(1000);
  });

  it('tells its queue per priority, the next slot, and when a call of each priority would start', async () => {
    const limiter = createProcessRateLimiter();
    const status = (id: string) =>
      (limiter as unknown as { [QUEUE_STATUS](ids: string[]): Promise<QueueStatus[]> })[QUEUE_STATUS]([id]);
    const idle = (await status('k'))[0] as QueueStatus;
    expect(idle.waiting).toEqual({ high: 0, normal: 0, low: 0 });
    expect(idle.nextSlotAt).toBeUndefined();
    const granted: { name: string; at: number }[] = [];
    const calls = [
      queue(limiter, 'k', 'first', granted),
      queue(limiter, 'k', 'l1', granted, { priority: 'low' }),
      queue(limiter, 'k', 'l2', granted, { priority: 'low' }),
      queue(limiter, 'k', 'n1', granted),
    ];
    await elapse(5);
    const now = Date.now();
    const busy = (await status('k'))[0] as QueueStatus;
    expect(busy.waiting).toEqual({ high: 0, normal: 1, low: 2 });
    expect(busy.nextSlotAt).toBeGreaterThan(now);
    const next = busy.nextSlotAt as number;
    expect(busy.estimatedStartAt.high).toBe(next);
    expect(busy.estimatedStartAt.normal).toBe(next + 1025);
    expect(busy.estimatedStartAt.low).toBe(next + 3 * 1025);
    await runOnFakeClock(Promise.all(calls), 30_000);
  });

  it('lets a queued call of any priority leave on abort, the others keeping their order', async () => {
    const limiter = createProcessRateLimiter();
    const granted: { name: string; at: number }[] = [];
    const controller = new AbortController();
    const calls: Promise<unknown>[] = [queue(limiter, 'k', 'first', granted)];
    await elapse(5);
    calls.push(
      queue(limiter, 'k', 'low', granted, { priority: 'low' }),
      queue(limiter, 'k', 'high', granted, { priority: 'high', signal: controller.signal }).catch((e: unknown) => e),
      queue(limiter, 'k', 'normal', granted),
    );
    await elapse(5);
    controller.abort(new Error('stop'));
    await runOnFakeClock(Promise.all(calls), 30_000);
    expect(granted.map((g) => g.name)).toEqual(['first', 'normal', 'low']);
    // No timer of the aborted wait is left: once the idle key is forgotten, none at all.
    await elapse(4100);
    expect(vi.getTimerCount()).toBe(0);
  });
});
