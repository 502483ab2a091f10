// priority and maxQueueWait on the client's calls (issue 30), with the options that touch the same waits: signal,
// retries and their waits, rateLimitKey's two budgets, a partner's rateLimiter, createEwayBills and createEwayBillOnce.
// On a fake clock: the tests assert which requests were sent and in which order, never wall time.
import {
  createEwayBillOnce,
  createEwayBills,
  createProcessRateLimiter,
  QueueTimeoutError,
  type RateLimiter,
  ServiceClient,
} from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { elapse, runOnFakeClock, useFakeClock } from '../helpers/fake-clock.js';
import { recordingFetch } from '../helpers/fake-fetch.js';
import { freshKey, validModel } from '../helpers/model.js';

const BASE_URL = 'https://service.test/api/partner';
const docOf = (url: string) => url.split('/').pop();
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: unknown) => error,
  );

/** Resolves once a request was sent (a bounded poll on the fake clock: runOnFakeClock moves it). */
const firstSent = (calls: readonly unknown[]) =>
  new Promise<void>((resolve) => {
    const check = () => (calls.length > 0 ? resolve() : setTimeout(check, 1));
    check();
  });

beforeEach(useFakeClock);
afterEach(() => vi.useRealTimers());

function setup(extra: Partial<ConstructorParameters<typeof ServiceClient>[0]> = {}) {
  const { fetch, calls } = recordingFetch();
  // A limiter of this test alone: the shared one would carry other tests' keys.
  const client = new ServiceClient({
    apiKey: freshKey('queue'),
    baseUrl: BASE_URL,
    fetch,
    rateLimiter: createProcessRateLimiter(),
    ...extra,
  });
  return { client, calls, sent: () => calls.map((c) => docOf(c.url)) };
}

describe('priority on createEwayBill', () => {
  it('sends a high call made behind 20 low ones next, and the low ones after it, in their order', async () => {
    const { client, calls, sent } = setup();
    const lows = Array.from({ length: 20 }, (_, i) =>
      client.createEwayBill(`low${i}`, validModel(), { priority: 'low' }),
    );
    // The first low has its slot and was sent (the transport's first start is real I/O: wait for the request).
    await runOnFakeClock(firstSent(calls));
    await runOnFakeClock(client.createEwayBill('high', validModel(), { priority: 'high' }));
    await runOnFakeClock(Promise.all(lows), 60_000);
    expect(sent()).toEqual(['low0', 'high', ...Array.from({ length: 19 }, (_, i) => `low${i + 1}`)]);
  });

  it('holds with a rateLimitKey: the high call waits for both budgets, and still goes first', async () => {
    const { client, sent, calls } = setup({ rateLimitKey: 'company-42' });
    const lows = Array.from({ length: 4 }, (_, i) =>
      client.createEwayBill(`low${i}`, validModel(), { priority: 'low' }),
    );
    // The first low is sent (the two-budget path loads on first use), the others wait; then the high call comes.
    await runOnFakeClock(firstSent(calls));
    const high = client.createEwayBill('high', validModel(), { priority: 'high' });
    await runOnFakeClock(Promise.all([high, ...lows]), 30_000);
    expect(sent()).toEqual(['low0', 'high', 'low1', 'low2', 'low3']);
  });

  it('rejects a wrong priority or maxQueueWait with a TypeError naming it, before anything is sent', async () => {
    const { client, calls } = setup();
    await expect(client.createEwayBill('x', validModel(), { priority: 'urgent' as never })).rejects.toThrow(
      /options\.priority must be one of 'high', 'normal', 'low'; got 'urgent'/,
    );
    await expect(client.request('GET', '/v2/x', { maxQueueWait: -1 })).rejects.toThrow(
      /options\.maxQueueWait must be a number of milliseconds from 0/,
    );
    expect(calls).toHaveLength(0);
  });
});

describe('maxQueueWait', () => {
  it('rejects at once with QUEUE_TIMEOUT behind 10 calls, and the call is never sent', async () => {
    const { client, calls, sent } = setup();
    const ahead = Array.from({ length: 10 }, (_, i) => client.createEwayBill(`ahead${i}`, validModel()));
    // The first call's transport starts by real I/O, not on the fake clock: wait for its request.
    await runOnFakeClock(firstSent(calls));
    const madeAt = Date.now();
    const error = await outcome(client.createEwayBill('hurried', validModel(), { maxQueueWait: 2000 }));
    expect(Date.now()).toBe(madeAt); // no fake time passed: it did not wait for the deadline
    expect(error).toBeInstanceOf(QueueTimeoutError);
    expect(error).toMatchObject({ code: 'QUEUE_TIMEOUT', mayHaveSucceeded: false, maxQueueWait: 2000 });
    await runOnFakeClock(Promise.all(ahead), 30_000);
    expect(sent()).not.toContain('hurried');
    expect(sent()).toHaveLength(10);
  });

  it('lets a call that fits start, and a signal still aborts the wait first', async () => {
    const { client, calls, sent } = setup();
    const first = client.createEwayBill('first', validModel());
    // The first call's transport starts by real I/O, not on the fake clock: wait for its request.
    await runOnFakeClock(firstSent(calls));
    const fits = client.createEwayBill('fits', validModel(), { maxQueueWait: 2000 });
    const controller = new AbortController();
    const aborted = outcome(
      client.createEwayBill('aborted', validModel(), { maxQueueWait: 5000, signal: controller.signal }),
    );
    controller.abort();
    expect(await aborted).toMatchObject({ name: 'AbortError' });
    await runOnFakeClock(Promise.all([first, fits]));
    expect(sent()).toEqual(['first', 'fits']);
  });

  it("bounds a retry's wait too: a 429 whose Retry-After ends past the deadline rejects, nothing sent again", async () => {
    const { fetch, calls } = recordingFetch(
      Response.json(
        { success: false, message: 'slow down', error_code: 'RATE_LIMITED' },
        {
          status: 429,
          headers: { 'retry-after': '5' },
        },
      ),
    );
    const client = new ServiceClient({ apiKey: freshKey('queue'), baseUrl: BASE_URL, fetch });
    const error = await runOnFakeClock(outcome(client.createEwayBill('doc', validModel(), { maxQueueWait: 3000 })));
    expect(error).toBeInstanceOf(QueueTimeoutError);
    // A 429: the service did not act on the first attempt, so nothing may have succeeded.
    expect(error).toMatchObject({ code: 'QUEUE_TIMEOUT', mayHaveSucceeded: false });
    expect(calls).toHaveLength(1);
  });

  it('says mayHaveSucceeded when an earlier attempt may have been acted on (a retried 503 of a PUT)', async () => {
    const { fetch, calls } = recordingFetch(Response.json({ success: false, message: 'down' }, { status: 503 }));
    const client = new ServiceClient({ apiKey: freshKey('queue'), baseUrl: BASE_URL, fetch });
    const error = await runOnFakeClock(outcome(client.request('PUT', '/v2/thing', { body: {}, maxQueueWait: 300 })));
    expect(error).toBeInstanceOf(QueueTimeoutError);
    expect(error).toMatchObject({ code: 'QUEUE_TIMEOUT', mayHaveSucceeded: true });
    expect(calls).toHaveLength(1);
  });

  it("ends the wait of a partner's two-argument limiter at the deadline, and gives its late grant back unused", async () => {
    const released: unknown[] = [];
    let grant: (() => void) | undefined;
    const partner: RateLimiter = {
      // Written before priorities existed: two arguments, first in first out, and slow.
      acquire: (_keyId: string, _signal?: AbortSignal) =>
        new Promise((resolve) => {
          grant = () => resolve((outcomeOfSlot?: unknown) => released.push(outcomeOfSlot));
        }),
    };
    const { client, calls } = setup({ rateLimiter: partner });
    const error = await runOnFakeClock(outcome(client.createEwayBill('doc', validModel(), { maxQueueWait: 1500 })));
    expect(error).toMatchObject({ code: 'QUEUE_TIMEOUT', mayHaveSucceeded: false, estimatedStartAt: undefined });
    grant?.();
    await elapse(5);
    expect(released).toEqual([{ unused: true }]);
    expect(calls).toHaveLength(0);
  });

  it("tells a partner's limiter the priority and the deadline; without them it is asked as before", async () => {
    const asked: unknown[][] = [];
    const partner: RateLimiter = {
      acquire: async (...args: unknown[]) => {
        asked.push(args);
      },
    };
    const { client } = setup({ rateLimiter: partner });
    await runOnFakeClock(client.createEwayBill('a', validModel()));
    await runOnFakeClock(client.createEwayBill('b', validModel(), { priority: 'high', maxQueueWait: 4000 }));
    expect(asked[0]).toHaveLength(2);
    expect(asked[1]?.[2]).toMatchObject({ priority: 'high', maxQueueWait: 4000, deadline: expect.any(Number) });
  });
});

describe('createEwayBills and createEwayBillOnce', () => {
  it("createEwayBills' items are low: an interactive call of the same key goes before the queued items", async () => {
    const { client, calls, sent } = setup();
    const items = Array.from({ length: 5 }, (_, i) => ({ docHashId: `item${i}`, model: validModel() }));
    const batch = createEwayBills(client, items, { concurrencyPerClient: 5 });
    // The batch's parts and the transport load by real I/O, not on the fake clock: wait for its first request.
    await runOnFakeClock(firstSent(calls));
    const interactive = client.createEwayBill('interactive', validModel());
    await runOnFakeClock(Promise.all([batch, interactive]), 30_000);
    expect(sent()).toEqual(['item0', 'interactive', 'item1', 'item2', 'item3', 'item4']);
  });

  it('createEwayBills passes maxQueueWait to each item: those that cannot start in time settle with QUEUE_TIMEOUT', async () => {
    const { client, sent } = setup();
    const items = Array.from({ length: 5 }, (_, i) => ({ docHashId: `item${i}`, model: validModel() }));
    const codes: (string | undefined)[] = [];
    await runOnFakeClock(
      createEwayBills(client, items, {
        concurrencyPerClient: 5,
        maxQueueWait: 2500,
        onResult: (result) => {
          codes.push(result.status === 'rejected' ? (result.error as { code?: string }).code : 'ok');
        },
      }),
      30_000,
    );
    expect(sent()).toEqual(['item0', 'item1', 'item2']);
    expect(codes.filter((c) => c === 'QUEUE_TIMEOUT')).toHaveLength(2);
  });

  it('createEwayBillOnce takes the priority: its call goes before queued low ones', async () => {
    const { client, calls, sent } = setup();
    const lows = Array.from({ length: 3 }, (_, i) =>
      client.createEwayBill(`low${i}`, validModel(), { priority: 'low' }),
    );
    await runOnFakeClock(firstSent(calls));
    const once = createEwayBillOnce(client, 'once', validModel(), { priority: 'high', maxQueueWait: 5000 });
    await runOnFakeClock(Promise.all([once, ...lows]), 30_000);
    expect(sent()).toEqual(['low0', 'once', 'low1', 'low2']);
  });
});

describe('client.queueStatus()', () => {
  it('tells the waiting calls per priority, the next slot, and when a call of each priority would start', async () => {
    const { client, calls: requests } = setup();
    const idle = await client.queueStatus();
    expect(idle.waiting).toEqual({ high: 0, normal: 0, low: 0 });
    expect(idle.nextSlotAt).toBeUndefined();
    const calls = [client.createEwayBill('first', validModel())];
    // The first call's transport starts by real I/O, not on the fake clock: wait for its request.
    await runOnFakeClock(firstSent(requests));
    calls.push(
      client.createEwayBill('l1', validModel(), { priority: 'low' }),
      client.createEwayBill('l2', validModel(), { priority: 'low' }),
      client.createEwayBill('n1', validModel()),
    );
    await elapse(1);
    const status = await client.queueStatus();
    expect(status.waiting).toEqual({ high: 0, normal: 1, low: 2 });
    const next = status.nextSlotAt as number;
    expect(next).toBeGreaterThan(Date.now());
    expect(status.estimatedStartAt).toEqual({ high: next, normal: next + 1025, low: next + 3 * 1025 });
    // A normal call made now starts when the status said (the fake clock makes it exact).
    const probe = client.createEwayBill('probe', validModel()).then(() => Date.now());
    const started = await runOnFakeClock(probe, 30_000);
    expect(Math.abs(started - status.estimatedStartAt.normal)).toBeLessThanOrEqual(2);
    await runOnFakeClock(Promise.all(calls), 30_000);
  });

  it("reports none waiting for a partner's limiter that does not tell its queue", async () => {
    const { client } = setup({ rateLimiter: { acquire: async () => {} } });
    const status = await client.queueStatus();
    expect(status.waiting).toEqual({ high: 0, normal: 0, low: 0 });
    expect(status.nextSlotAt).toBeUndefined();
  });

  it('with a rateLimitKey reports the budget that decides: the name shared with a busier client', async () => {
    const limiter = createProcessRateLimiter();
    const { fetch, calls: requests } = recordingFetch();
    const make = (apiKey: string) =>
      new ServiceClient({ apiKey, baseUrl: BASE_URL, fetch, rateLimiter: limiter, rateLimitKey: 'company-7' });
    const busy = make(freshKey('busy'));
    const quiet = make(freshKey('quiet'));
    const calls = Array.from({ length: 4 }, (_, i) => busy.createEwayBill(`b${i}`, validModel()));
    // The first call's transport starts by real I/O, not on the fake clock: wait for its request.
    await runOnFakeClock(firstSent(requests));
    const status = await quiet.queueStatus();
    // The quiet key's own budget is free; the company's is not: a call of the quiet key waits for it.
    expect(status.nextSlotAt).toBeGreaterThan(Date.now());
    expect(status.estimatedStartAt.normal).toBeGreaterThan(Date.now() + 1000);
    await runOnFakeClock(Promise.all(calls), 30_000);
  });
});

describe('hooks.onQueued and the debug line', () => {
  it('tells a waiting attempt its priority, place and expected start, and logs it at debug without the key', async () => {
    const apiKey = freshKey('queued-hook');
    const events: unknown[] = [];
    const lines: [string, Record<string, unknown> | undefined][] = [];
    const { fetch, calls } = recordingFetch();
    const client = new ServiceClient({
      apiKey,
      baseUrl: BASE_URL,
      fetch,
      rateLimiter: createProcessRateLimiter(),
      hooks: { onQueued: (event) => events.push(event) },
      logger: { debug: (message, details) => lines.push([message, details]), warn: () => {} },
    });
    const first = client.createEwayBill('first', validModel());
    // The first call's transport starts by real I/O, not on the fake clock: wait for its request.
    await runOnFakeClock(firstSent(calls));
    const waiting = [
      client.createEwayBill('second', validModel(), { priority: 'low' }),
      client.createEwayBill('third', validModel(), { priority: 'high' }),
    ];
    await runOnFakeClock(Promise.all([first, ...waiting]), 30_000);
    expect(calls.map((c) => docOf(c.url))).toEqual(['first', 'third', 'second']);
    // The first found its slot free: not queued.
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ docHashId: 'second', attempt: 1, priority: 'low', position: 0 });
    expect(events[1]).toMatchObject({ docHashId: 'third', attempt: 1, priority: 'high', position: 0 });
    const third = events[1] as { estimatedStartAt: number };
    expect(third.estimatedStartAt).toBeGreaterThan(Date.now() - 30_000);
    const queuedLines = lines.filter(([message]) => message === 'invoicing-service-sdk: queued');
    expect(queuedLines).toHaveLength(2);
    expect(queuedLines[0]?.[1]).toMatchObject({ priority: 'low', position: 0, docHashId: 'second' });
    expect(JSON.stringify(lines)).not.toContain(apiKey);
  });

  it('calls onQueued once for an attempt that waits for two budgets (rateLimitKey), whatever the limiter tells', async () => {
    const events: unknown[] = [];
    const asked: string[] = [];
    // A partner's limiter that reports a place in line for every budget it is asked for.
    const partner: RateLimiter = {
      acquire: async (keyId, _signal, options) => {
        asked.push(keyId);
        options?.onQueued?.({
          priority: options.priority ?? 'normal',
          position: 3,
          estimatedStartAt: Date.now() + 3000,
        });
      },
    };
    const { client } = setup({
      rateLimiter: partner,
      rateLimitKey: 'company-9',
      hooks: { onQueued: (e) => events.push(e) },
    });
    await runOnFakeClock(client.createEwayBill('doc', validModel(), { priority: 'low' }));
    expect(asked).toHaveLength(2);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ docHashId: 'doc', priority: 'low', position: 3 });
  });
});
