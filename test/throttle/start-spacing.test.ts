// Issue 13: the default spacing reaches the limit when answers are slow, holds a request that is still being written,
// and widens after a 429.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProcessRateLimiter, type RateLimiter, ServiceClient } from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchWrite } from '../../src/client/write-tracker.js';
import { elapse, runOnFakeClock, useFakeClock } from '../helpers/fake-clock.js';
import { recordingFetch } from '../helpers/fake-fetch.js';
import { expectGrants, recordingLimiter } from '../helpers/limiter-grants.js';
import { listenOnLoopback } from '../helpers/loopback.js';
import { freshKey, validModel } from '../helpers/model.js';

const grantTime = (acquired: ReturnType<RateLimiter['acquire']>) =>
  acquired.then((release) => ({ at: performance.now(), release: release ?? undefined }));

/** Two calls of one fresh key, one after the other, on the fake clock, through a recorded default limiter. */
async function twoCalls(name: string, fetch: typeof globalThis.fetch) {
  const { limiter, grants } = recordingLimiter(createProcessRateLimiter());
  const client = new ServiceClient({
    apiKey: freshKey(name),
    baseUrl: 'https://service.test/api/partner',
    fetch,
    rateLimiter: limiter,
  });
  for (const doc of ['d1', 'd2']) await runOnFakeClock(client.createEwayBill(doc, validModel()));
  return grants;
}

describe('the default spacing, on a fake clock', () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it('keeps a key at the limit when every answer takes 1.5 s: 5 calls start about 1 s apart', async () => {
    const { fetch, calls } = recordingFetch(
      ...Array.from(
        { length: 5 },
        () => () =>
          new Promise<Response>((resolve) =>
            setTimeout(() => resolve(Response.json({ success: true, message: 'ok' })), 1500),
          ),
      ),
    );
    const { limiter, grants } = recordingLimiter(createProcessRateLimiter());
    const client = new ServiceClient({
      apiKey: freshKey('slow'),
      baseUrl: 'https://service.test/api/partner',
      fetch,
      rateLimiter: limiter,
    });
    await runOnFakeClock(Promise.all([0, 1, 2, 3, 4].map((i) => client.createEwayBill(`d${i}`, validModel()))));
    // Each grant 1025 ms after the previous request left (interval + margin, + the fake clock's 1 ms step), not after
    // its 1.5 s answer (the answer-anchored policy gave 2500 here); one grant per request, no fetch before its grant.
    expectGrants(
      grants,
      calls.map((call) => call.at),
      1000,
      27,
    );
  });

  it('does not start the next request while the previous one is still being written', async () => {
    const limiter = createProcessRateLimiter();
    const first = await runOnFakeClock(grantTime(limiter.acquire('k-write')));
    first.release?.sent?.();
    first.release?.leaving?.(); // a cold connection: the bytes are not out yet
    const next = grantTime(limiter.acquire('k-write'));
    await elapse(1300);
    let granted = false;
    void next.then(() => {
      granted = true;
    });
    await elapse(1);
    expect(granted).toBe(false); // 1300 ms after its grant, the first request is still being written
    const writtenAt = performance.now();
    first.release?.sent?.(); // written now
    const { at } = await runOnFakeClock(next);
    expect(at - writtenAt).toBeGreaterThanOrEqual(1000);
    expect(at - writtenAt).toBeLessThan(1060);
  });

  it('bounds the hold for a write that is never reported by answerWaitLimit', async () => {
    const limiter = createProcessRateLimiter({ answerWaitLimit: 500 });
    const first = await runOnFakeClock(grantTime(limiter.acquire('k-stuck')));
    first.release?.leaving?.();
    const { at } = await runOnFakeClock(grantTime(limiter.acquire('k-stuck')));
    expect(at - first.at).toBeGreaterThanOrEqual(1500);
    expect(at - first.at).toBeLessThan(1560);
  });

  it('after a 429, waits for the previous answer on every key (or answerWaitLimit), then relaxes by half every 30 s', async () => {
    const limiter = createProcessRateLimiter();
    // Before any 429: a slow answer does not hold the next request.
    const a = await runOnFakeClock(grantTime(limiter.acquire('k-a')));
    await elapse(400);
    a.release?.();
    const b = await runOnFakeClock(grantTime(limiter.acquire('k-a')));
    expect(b.at - a.at).toBeLessThan(1060);
    // A 429 on one key: the service counts late.
    b.release?.({ rateLimited: true });
    // Another key now waits for its previous answer: answered 400 ms after it left, so 1400 ms.
    const c = await runOnFakeClock(grantTime(limiter.acquire('k-c')));
    await elapse(400);
    c.release?.();
    const d = await runOnFakeClock(grantTime(limiter.acquire('k-c')));
    expect(d.at - c.at).toBeGreaterThanOrEqual(1395);
    expect(d.at - c.at).toBeLessThan(1460);
    // An answer slower than the learnt lag holds the next request only up to it: the lag started at answerWaitLimit
    // (1000 ms) and has decayed for about 3.4 s since the 429 (to about 924 ms), so about 1924 ms.
    const e = await runOnFakeClock(grantTime(limiter.acquire('k-c')));
    const f = grantTime(limiter.acquire('k-c'));
    await elapse(2600);
    e.release?.();
    const fAt = (await runOnFakeClock(f)).at;
    expect(fAt - e.at).toBeGreaterThanOrEqual(1900);
    expect(fAt - e.at).toBeLessThan(2000);
    d.release?.();
    // Four half-lives later the learnt lag is a sixteenth (about 60 ms): a slow answer costs little again.
    await vi.advanceTimersByTimeAsync(120_000);
    const g = await runOnFakeClock(grantTime(limiter.acquire('k-g')));
    await elapse(400);
    g.release?.();
    const h = await runOnFakeClock(grantTime(limiter.acquire('k-g')));
    expect(h.at - g.at).toBeLessThan(1100);
    h.release?.();
  });

  // The runtime smoke on Bun sent a key's two requests 997.9 ms apart: the client reported the first one sent, then
  // loaded node:diagnostics_channel for its write tracker (the first request of a process; 1-11 ms on an idle Bun,
  // more under load, already loaded in Node) and only then called fetch, so the limiter spaced the next request from
  // a moment before the first really left.
  it('reports a request sent when it is handed to fetch, after the write tracker has loaded', async () => {
    const TRACKER = Symbol.for('invoicing-service-sdk.write-tracker');
    const holder = globalThis as { [TRACKER]?: unknown };
    const tracker = holder[TRACKER];
    delete holder[TRACKER]; // as in a fresh process: the first request loads it
    const getBuiltin = process.getBuiltinModule.bind(process);
    const slowLoad = vi.spyOn(process, 'getBuiltinModule').mockImplementation(((id: string) => {
      if (id === 'node:diagnostics_channel') vi.advanceTimersByTime(40); // a cold load on a busy Bun
      return getBuiltin(id);
    }) as typeof process.getBuiltinModule);
    try {
      const { fetch, calls } = recordingFetch();
      const grants = await twoCalls('cold-tracker', fetch);
      expect(slowLoad).toHaveBeenCalledWith('node:diagnostics_channel');
      expect(calls).toHaveLength(2);
      // Nothing of the SDK's runs between its report and the fetch call: the two are the same moment on this clock.
      expect(grants.map((grant) => Math.max(...grant.sent))).toEqual(calls.map((call) => call.at));
      // So the fetch calls themselves are interval + margin apart.
      expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBeGreaterThanOrEqual(1025);
    } finally {
      slowLoad.mockRestore();
      holder[TRACKER] = tracker;
    }
  });

  // Under load the process can be paused anywhere, also between the client's report and the moment the runtime takes
  // the request (the runtime smoke's stamping fetch saw up to 36 ms there on a loaded Bun). Where no write is watched
  // (Bun, Deno, workerd, a custom fetch) the request is in the runtime's hands once fetch returns: spaced from there.
  it('spaces the next request from when fetch returned, where no write is watched', async () => {
    const { fetch: recorded, calls } = recordingFetch();
    const fetch: typeof globalThis.fetch = (input, init) => {
      vi.advanceTimersByTime(40); // the process paused before the runtime took the request
      return recorded(input, init);
    };
    const grants = await twoCalls('paused-send', fetch);
    expect(calls).toHaveLength(2);
    // The last report of each request is no earlier than the runtime took it.
    for (const [i, grant] of grants.entries())
      expect(Math.max(...grant.sent)).toBeGreaterThanOrEqual(calls[i]?.at ?? 0);
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBeGreaterThanOrEqual(1025);
  });
});

describe("Node's fetch reports when a request was written", () => {
  it('calls leaving, then written, for the watched POST, and nothing for another URL', async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('{}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}/api/v2/ewaybill/doc%201`;
    const events: string[] = [];
    const other: string[] = [];
    try {
      const stop = watchWrite('POST', url, {
        leaving: () => events.push('leaving'),
        written: () => events.push('written'),
      });
      const stopOther = watchWrite('POST', `http://127.0.0.1:${port}/api/v2/ewaybill/other`, {
        leaving: () => other.push('leaving'),
        written: () => other.push('written'),
      });
      await fetch(url, { method: 'POST', body: '{"a":1}' }).then((r) => r.text());
      stop();
      stopOther();
      expect(events).toEqual(['leaving', 'written']);
      expect(other).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('what the client tells its limiter', () => {
  it('reports a 429 as rateLimited, and any other answer as not', async () => {
    const outcomes: unknown[] = [];
    const rateLimiter = {
      acquire: async () => Object.assign((outcome?: unknown) => outcomes.push(outcome), { sent: () => {} }),
    };
    const answers = [
      () =>
        Response.json(
          { success: false, error_code: 'RATE_LIMITED', message: 'slow', errors: {} },
          { status: 429, headers: { 'retry-after': '0' } },
        ),
      () => Response.json({ success: true, message: 'ok' }),
    ];
    const { fetch } = recordingFetch(...answers);
    const client = new ServiceClient({
      apiKey: freshKey('out'),
      baseUrl: 'https://service.test/api',
      fetch,
      rateLimiter,
    });
    await client.createEwayBill('doc', validModel());
    expect(outcomes).toEqual([{ rateLimited: true }, { rateLimited: false }]);
  });

  it("with Node's fetch, a request stays leaving until its body is written: no report right after the fetch call", async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"message":"ok"}'),
      );
    });
    const { port, close } = await listenOnLoopback(server);
    const events: string[] = [];
    const rateLimiter: RateLimiter = {
      acquire: async () =>
        Object.assign(() => events.push('released'), {
          sent: () => events.push('sent'),
          leaving: () => events.push('leaving'),
        }),
    };
    try {
      const client = new ServiceClient({
        apiKey: freshKey('node-write'),
        baseUrl: `http://127.0.0.1:${port}/api/partner`,
        rateLimiter,
      });
      await client.createEwayBill('doc', validModel());
      // Granted and being prepared (leaving), handed to fetch (sent), undici's request created during the call (leaving)
      // and written (sent): nothing in between clears the write.
      expect(events).toEqual(['leaving', 'sent', 'leaving', 'sent', 'released']);
    } finally {
      await close();
    }
  });
});

describe('a key read after the grant (a key function with rateLimitKey), on a fake clock', () => {
  beforeEach(useFakeClock);
  afterEach(() => vi.useRealTimers());

  it('a key function that answers slowly once: the next call does not overtake it within 1 s', async () => {
    const { fetch, calls } = recordingFetch();
    let reads = 0;
    const apiKey = freshKey('slow-secret');
    const client = new ServiceClient({
      // The first read waits on a secrets store for 1.5 s; later reads come from its cache.
      apiKey: () => (reads++ === 0 ? new Promise<string>((r) => setTimeout(() => r(apiKey), 1500)) : apiKey),
      rateLimitKey: 'company-slow-secret',
      baseUrl: 'https://service.test/api/partner',
      fetch,
      rateLimiter: createProcessRateLimiter(),
    });
    await runOnFakeClock(
      Promise.all([client.createEwayBill('d0', validModel()), client.createEwayBill('d1', validModel())]),
    );
    const [first, second] = calls.map((c) => c.at).sort((a, b) => a - b);
    expect(calls).toHaveLength(2);
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(1000);
  });
});
