// Issue 28, item 1: a key is one budget, whatever `rateLimitKey` its clients name. A call waits for every budget its
// key belongs to: the key's own, and its `rateLimitKey`'s when named.
import { createServer } from 'node:http';
import { createProcessRateLimiter, ServiceClient } from 'invoicing-service-sdk';
import { startMockServer } from 'invoicing-service-sdk/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { acquireBudgets } from '../../src/client/acquire.js';
import type { ReleaseSlot } from '../../src/throttle/rate-limiter.js';
import { elapse, useFakeClock } from '../helpers/fake-clock.js';
import { listenOnLoopback } from '../helpers/loopback.js';
import { freshKey, validModel } from '../helpers/model.js';

/** A loopback stand-in for the service that answers every request with a success. */
async function okServer() {
  let arrivals = 0;
  const server = createServer((request, response) => {
    arrivals += 1;
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ success: true, message: 'ok' }));
    });
  });
  const { port, close } = await listenOnLoopback(server);
  return { baseUrl: `http://127.0.0.1:${port}/api/partner`, close, arrivals: () => arrivals };
}

/** A fetch that records, per `Authorization`, when the SDK handed it each request (`Date.now()`). */
function stampingFetch() {
  const sends = new Map<string, number[]>();
  const fetch: typeof globalThis.fetch = (input, init) => {
    const headers = input instanceof Request ? input.headers : new Headers(init?.headers);
    const authorization = headers.get('authorization') ?? '';
    sends.set(authorization, [...(sends.get(authorization) ?? []), Date.now()]);
    return globalThis.fetch(input, init);
  };
  return { fetch, sends };
}

const gaps = (times: readonly number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted.slice(1).map((time, i) => time - (sorted[i] as number));
};

describe('two clients of one key, on the shared in-process limiter, against a real loopback server', () => {
  it.each([
    ['one names a rateLimitKey and one names none', 'company-42', undefined],
    ['they name two different rateLimitKeys', 'company-42', 'company-43'],
  ])(
    '%s: the key sends at most once a second',
    async (_, first, second) => {
      const server = await okServer();
      try {
        const { fetch, sends } = stampingFetch();
        const apiKey = freshKey('one-budget');
        const options = { apiKey, baseUrl: server.baseUrl, fetch, maxRetries: 0 };
        const a = new ServiceClient({ ...options, rateLimitKey: first });
        const b = new ServiceClient({ ...options, rateLimitKey: second });
        // Interleaved, as the audit's two clients were: before the fix each name was a budget of its own, and the two
        // clients' sends came 1 ms apart.
        await Promise.all([a, b, a, b].map((client, i) => client.request('GET', `/v2/doc/${i}`)));
        const times = sends.get(`Bearer ${apiKey}`) ?? [];
        expect(times).toHaveLength(4);
        for (const gap of gaps(times)) expect(gap).toBeGreaterThanOrEqual(1000);
      } finally {
        await server.close();
      }
    },
    30_000,
  );

  it("against the SDK's own mock server, no call of either client is answered 429", async () => {
    const mock = await startMockServer();
    try {
      const options = { apiKey: mock.apiKey, baseUrl: mock.baseUrl, maxRetries: 0, preflight: 'off' as const };
      const named = new ServiceClient({ ...options, rateLimitKey: 'company-42' });
      const plain = new ServiceClient(options);
      const docs = [0, 1, 2, 3].map(() => mock.service.addDocument());
      const results = await Promise.allSettled(
        docs.map((doc, i) => (i % 2 === 0 ? named : plain).createEwayBill(doc, validModel())),
      );
      // With maxRetries 0 a 429 would be the call's RateLimitError; before the fix every second call was one.
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    } finally {
      await mock.close();
    }
  }, 30_000);
});

describe("the in-process limiter's grants of several budgets, on a fake clock", () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  /** When each acquisition is granted, in fake milliseconds. */
  const timed = (acquired: Promise<unknown>) =>
    acquired.then((slot) => ({ at: performance.now(), slot: slot as ReleaseSlot }));

  it('a call that holds the key and waits for its name keeps the key from anyone else until it leaves', async () => {
    const limiter = createProcessRateLimiter();
    // Budgets are taken in sorted order: the key's first here, so it is the one held.
    const key = `a-${freshKey('held')}`;
    const name = `b-${freshKey('name')}`;
    // The name was just used by another key: its next slot is about 1 s away.
    const other = (await limiter.acquire(name)) as ReleaseSlot;
    other.sent?.();
    other();
    const t0 = performance.now();
    const both = timed(acquireBudgets(limiter, [key, name], undefined, undefined));
    const keyOnly = timed(limiter.acquire(key) as Promise<ReleaseSlot>);
    await elapse(1100);
    const granted = await both;
    expect(granted.at - t0).toBeGreaterThanOrEqual(1025);
    // Not before the call holding the key left:
    let keyOnlyAt: number | undefined;
    void keyOnly.then((g) => {
      keyOnlyAt = g.at;
    });
    await elapse(500);
    expect(keyOnlyAt).toBeUndefined();
    const sentAt = performance.now();
    granted.slot.sent?.();
    granted.slot();
    await elapse(1100);
    expect(keyOnlyAt).toBeDefined();
    expect((keyOnlyAt as number) - sentAt).toBeGreaterThanOrEqual(1025);
  });

  it('an abort while the name is awaited gives the key back at once, unused: the next call of the key is not delayed', async () => {
    const limiter = createProcessRateLimiter();
    const key = `a-${freshKey('give-back')}`;
    const name = `b-${freshKey('busy-name')}`;
    // The key's budget was used 1.1 s ago: free now. The name's was just used: busy for about 1 s.
    const earlier = (await limiter.acquire(key)) as ReleaseSlot;
    earlier.sent?.();
    earlier();
    await elapse(1100);
    const other = (await limiter.acquire(name)) as ReleaseSlot;
    other.sent?.();
    other();
    const controller = new AbortController();
    const both = acquireBudgets(limiter, [key, name], controller.signal, undefined);
    both.catch(() => {});
    await elapse(10);
    controller.abort();
    await expect(both).rejects.toMatchObject({ name: 'AbortError' });
    const t0 = performance.now();
    const next = timed(limiter.acquire(key) as Promise<ReleaseSlot>);
    await elapse(50);
    // Given back: granted at once, not 1025 ms after the unused grant (and not held for ever).
    expect((await next).at - t0).toBeLessThan(50);
  });
});

describe("a partner's own rateLimiter with a rateLimitKey", () => {
  it('is asked for each budget in turn; an abort while the second is awaited gives the first back unused, nothing sent', async () => {
    const asked: string[] = [];
    const outcomes: unknown[] = [];
    const rateLimiter = {
      // Grants the first budget at once; never grants the second, and ignores the signal.
      acquire: (keyId: string) => {
        asked.push(keyId);
        if (asked.length > 1) return new Promise<undefined>(() => {});
        return Promise.resolve(Object.assign((outcome?: unknown) => void outcomes.push(outcome), {}));
      },
    };
    let fetched = 0;
    const client = new ServiceClient({
      apiKey: freshKey('partner'),
      rateLimitKey: 'company-42',
      baseUrl: 'http://127.0.0.1:9/api/partner',
      rateLimiter,
      fetch: async () => {
        fetched += 1;
        return Response.json({ success: true });
      },
    });
    const controller = new AbortController();
    const call = client.request('GET', '/v2/product/list', { signal: controller.signal });
    call.catch(() => {});
    for (let i = 0; i < 100 && asked.length < 2; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toHaveLength(2);
    expect(new Set(asked).size).toBe(2);
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(outcomes).toEqual([{ unused: true }]);
    expect(fetched).toBe(0);
  });
});
