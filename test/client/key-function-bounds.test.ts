// Issue 28, item 3: the caller's signal and timeout bound the key function, on the first read (before the call
// queues) and on the read after a 401. Nothing is sent when they end the call.
import { createServer } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ServiceClient, TimeoutError } from 'invoicing-service-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runOnFakeClock, useFakeClock } from '../helpers/fake-clock.js';
import { listenOnLoopback } from '../helpers/loopback.js';
import { freshKey } from '../helpers/model.js';
import { watchTraffic } from '../helpers/traffic.js';

/** A loopback stand-in for the service: answers `status` (401 in the service's envelope, or 200) and counts arrivals. */
async function server(status: 200 | 401) {
  const arrivals: string[] = [];
  const http = createServer((request, response) => {
    arrivals.push(request.headers.authorization ?? '');
    request.resume();
    request.on('end', () => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(
          status === 200 ? { success: true } : { success: false, error_code: 'UNAUTHORIZED', message: 'no' },
        ),
      );
    });
  });
  const traffic = watchTraffic(http);
  const { port, close } = await listenOnLoopback(http);
  return { baseUrl: `http://127.0.0.1:${port}/api/partner`, arrivals, traffic, close };
}

/** A key function that records each read and answers `answers[i]` (a key, or a promise) on the i-th one. */
function keyFunction(...answers: (() => string | Promise<string>)[]) {
  let count = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  const apiKey = () => {
    count += 1;
    for (const w of waiters.filter((w) => w.n <= count)) w.resolve();
    const answer = answers[Math.min(count, answers.length) - 1] as () => string | Promise<string>;
    return answer();
  };
  /** Resolves once the function has been read `n` times. */
  const readTimes = (n: number) =>
    n <= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }));
  return { apiKey, readTimes };
}

const never = () => new Promise<string>(() => {});

/** Tracks a call: whether it has settled, and how. */
function track(call: Promise<unknown>) {
  const state: { settled: boolean; error?: unknown } = { settled: false };
  call.then(
    () => {
      state.settled = true;
    },
    (error: unknown) => {
      state.settled = true;
      state.error = error;
    },
  );
  return state;
}

describe('a key function that never settles', () => {
  it('an abort rejects the call at once with an AbortError, and nothing is sent', async () => {
    const service = await server(200);
    try {
      const key = keyFunction(never);
      const client = new ServiceClient({ apiKey: key.apiKey, baseUrl: service.baseUrl });
      const controller = new AbortController();
      const call = track(client.request('GET', '/v2/product/list', { signal: controller.signal }));
      await key.readTimes(1);
      expect(call.settled).toBe(false);
      controller.abort();
      await nextTurn();
      // Settled in the turn of the abort: before the fix it stayed pending for as long as the key function did.
      expect(call.settled).toBe(true);
      expect(call.error).toMatchObject({ name: 'AbortError' });
      expect(service.arrivals).toEqual([]);
    } finally {
      await service.close();
    }
  });

  it('the re-read after a 401: an abort rejects at once with an AbortError; only the refused request was sent', async () => {
    const service = await server(401);
    try {
      const old = freshKey('refused');
      const key = keyFunction(() => old, never);
      const client = new ServiceClient({ apiKey: key.apiKey, baseUrl: service.baseUrl });
      const controller = new AbortController();
      const call = track(client.request('GET', '/v2/product/list', { signal: controller.signal }));
      await key.readTimes(2);
      expect(call.settled).toBe(false);
      controller.abort();
      await nextTurn();
      expect(call.settled).toBe(true);
      expect(call.error).toMatchObject({ name: 'AbortError' });
      expect(service.arrivals).toEqual([`Bearer ${old}`]);
    } finally {
      await service.close();
    }
  });

  it("the re-read after a 401: the call's timeout rejects with TimeoutError, mayHaveSucceeded false", async () => {
    const service = await server(401);
    try {
      const old = freshKey('refused-timeout');
      const key = keyFunction(() => old, never);
      // The same timeout bounds the first attempt, which must get its 401: on the fake clock, which stands still while
      // the request or its answer is on its way, so a busy machine cannot make that attempt time out instead.
      const { hooks, inTransit } = service.traffic;
      const client = new ServiceClient({ apiKey: key.apiKey, baseUrl: service.baseUrl, timeout: 3000, hooks });
      useFakeClock();
      const work = client.request('GET', '/v2/product/list');
      const error = await runOnFakeClock(work, 30_000, { holdWhile: inTransit }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error).toMatchObject({ code: 'TIMEOUT', mayHaveSucceeded: false, timeout: 3000 });
      expect(service.arrivals).toEqual([`Bearer ${old}`]);
    } finally {
      vi.useRealTimers();
      await service.close();
    }
  }, 15_000);
});

describe('a key function and the clock (fake timers)', () => {
  afterEach(() => vi.useRealTimers());

  it('timeout 1000: the call rejects with TimeoutError when the timeout passes, mayHaveSucceeded false, nothing sent', async () => {
    const service = await server(200);
    useFakeClock();
    try {
      const key = keyFunction(never);
      const client = new ServiceClient({ apiKey: key.apiKey, baseUrl: service.baseUrl, timeout: 1000 });
      const call = track(client.request('GET', '/v2/product/list'));
      await key.readTimes(1);
      await vi.advanceTimersByTimeAsync(999);
      await nextTurn();
      expect(call.settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await nextTurn();
      expect(call.settled).toBe(true);
      expect(call.error).toBeInstanceOf(TimeoutError);
      expect(call.error).toMatchObject({ mayHaveSucceeded: false, timeout: 1000 });
      expect(service.arrivals).toEqual([]);
    } finally {
      vi.useRealTimers();
      await service.close();
    }
  });

  it('a key that arrives after 3 s while the signal fires at 1 s: the call rejects when the signal fires', async () => {
    const service = await server(200);
    useFakeClock();
    try {
      const apiKey = freshKey('late');
      const key = keyFunction(() => new Promise<string>((resolve) => setTimeout(() => resolve(apiKey), 3000)));
      const client = new ServiceClient({ apiKey: key.apiKey, baseUrl: service.baseUrl });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 1000);
      const call = track(client.request('GET', '/v2/product/list', { signal: controller.signal }));
      await key.readTimes(1);
      await vi.advanceTimersByTimeAsync(1000);
      expect(controller.signal.aborted).toBe(true);
      await nextTurn();
      // Before the fix it rejected only when the key arrived, at 3 s.
      expect(call.settled).toBe(true);
      expect(call.error).toMatchObject({ name: 'AbortError' });
      await vi.advanceTimersByTimeAsync(2500);
      await nextTurn();
      expect(service.arrivals).toEqual([]);
    } finally {
      vi.useRealTimers();
      await service.close();
    }
  });
});
