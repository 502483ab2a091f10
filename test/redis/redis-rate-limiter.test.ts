import { ServiceClient } from 'invoicing-service-sdk';
import { createRedisRateLimiter, RateLimiterUnavailableError } from 'invoicing-service-sdk/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKey, validModel } from '../helpers/model.js';
import { LIBRARIES, type TestClient } from './clients.js';
import { expectSpacedSends, type Send, stampingFetch, startCountingServer } from './counting-server.js';
import { keyState, redisTime, spyScript } from './grants.js';
import { startHungServer, startRedis, type TestRedis } from './redis-server.js';

const INTERVAL = 300;
let redis: TestRedis;

beforeAll(async () => {
  redis = await startRedis();
}, 300_000);
afterAll(() => redis?.stop());

/** A logger that keeps what it was told. */
function recordingLogger() {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message), debug: () => {} };
}

/** Runs `body` with `count` connections of `library` to the test Redis (one per simulated process), closing them after. */
async function withClients<T>(
  library: (typeof LIBRARIES)[number],
  count: number,
  body: (clients: TestClient[]) => Promise<T>,
): Promise<T> {
  const clients = await Promise.all(Array.from({ length: count }, () => library.connect(redis.port)));
  try {
    return await body(clients);
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}

describe.each(LIBRARIES)('createRedisRateLimiter with $name', (library) => {
  it('keeps the requests of one key interval apart at the service across three processes (waitForAnswer)', async () => {
    const server = await startCountingServer();
    const apiKey = freshKey('redis-gaps');
    const sends: Send[] = [];
    try {
      await withClients(library, 3, async (clients) => {
        const calls = clients.flatMap((client, p) => {
          const rateLimiter = createRedisRateLimiter({ redis: client.redis, interval: INTERVAL, waitForAnswer: true });
          const service = new ServiceClient({
            apiKey,
            baseUrl: server.baseUrl,
            rateLimiter,
            fetch: stampingFetch(sends),
          });
          return [0, 1, 2].map((i) => service.createEwayBill(`p${p}-${i}`, validModel()));
        });
        await Promise.all(calls);
      });
      expect(server.arrivals).toHaveLength(9);
      const ordered = expectSpacedSends(sends, server, INTERVAL);
      // Every process got turns before any finished all of its own (first come, first served across processes).
      expect(new Set(ordered.slice(0, 3).map((send) => send.id.split('-')[0])).size).toBeGreaterThan(1);
    } finally {
      await server.close();
    }
  });

  it('starts the next request interval after the previous answer, across processes (waitForAnswer)', async () => {
    const server = await startCountingServer(150);
    const apiKey = freshKey('redis-answer');
    const sends: Send[] = [];
    try {
      await withClients(library, 2, async (clients) => {
        const calls = clients.flatMap((client, p) => {
          const rateLimiter = createRedisRateLimiter({ redis: client.redis, interval: INTERVAL, waitForAnswer: true });
          const service = new ServiceClient({
            apiKey,
            baseUrl: server.baseUrl,
            rateLimiter,
            fetch: stampingFetch(sends),
          });
          return [0, 1].map((i) => service.createEwayBill(`p${p}-${i}`, validModel()));
        });
        await Promise.all(calls);
      });
      expect(server.arrivals).toHaveLength(4);
      const ordered = expectSpacedSends(sends, server, INTERVAL);
      // Each send is interval after the previous request's answer was written: the answer is stamped before it is
      // written, so the client cannot have seen it earlier (one clock, Date.now(), on one machine).
      for (let i = 1; i < 4; i++) {
        const previous = server.answers[server.ids.indexOf(ordered[i - 1]?.id ?? '')] ?? Number.NaN;
        expect((ordered[i]?.at ?? Number.NaN) - previous).toBeGreaterThanOrEqual(INTERVAL);
      }
    } finally {
      await server.close();
    }
  });

  it('by default spaces the starts only, asking Redis for each', async () => {
    // No answer is written before all four requests have arrived: a limiter that waited for answers would hang here.
    const server = await startCountingServer(0, 4);
    const apiKey = freshKey('redis-starts');
    const sends: Send[] = [];
    try {
      const spies: ReturnType<typeof spyScript>[] = [];
      await withClients(library, 2, async ([a, b]) => {
        if (!a || !b) throw new Error('two clients expected');
        await a.command(['CONFIG', 'RESETSTAT']);
        const services = [a, b].map(
          (client) =>
            new ServiceClient({
              apiKey,
              baseUrl: server.baseUrl,
              rateLimiter: createRedisRateLimiter({
                redis: spies[spies.push(spyScript(client.redis)) - 1]?.redis as never,
                interval: INTERVAL,
              }),
              fetch: stampingFetch(sends),
            }),
        );
        await Promise.all(
          services.flatMap((service, p) => [0, 1].map((i) => service.createEwayBill(`p${p}-${i}`, validModel()))),
        );
        const stats = String(await a.command(['INFO', 'commandstats']));
        const scriptCalls = [...stats.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)].reduce(
          (sum, match) => sum + Number(match[1]),
          0,
        );
        // Redis decided every request. How many calls each decision takes grows with the machine's load (a grant
        // handed over late is confirmed again), so it is a benchmark figure, not a bound: "Redis script calls … per
        // granted request" in `ONLY=one-key-starts npm run bench:redis`.
        expect(scriptCalls).toBeGreaterThanOrEqual(4);
      });
      // Starts only spaces the starts (fetch called); arrivals may jitter, which is what waitForAnswer is for.
      expect(sends).toHaveLength(4);
      expectSpacedSends(sends, server, INTERVAL);
      // Starts only: Redis is asked to space starts, never told of an answer (no `release`), so all four were sent
      // while the first was still unanswered (the server held every answer until the fourth arrived).
      const calls = spies.flatMap((spy) => spy.calls);
      expect(calls.filter((call) => call.op === 'acquire').length).toBeGreaterThanOrEqual(4);
      expect(calls.filter((call) => call.waitForAnswer || call.op === 'release')).toEqual([]);
      expect(Math.max(...sends.map((send) => send.at))).toBeLessThanOrEqual(Math.min(...server.answers));
    } finally {
      await server.close();
    }
  });

  it('decides the slot of a free key in one round trip, and Redis holds only expiring SHA-256 hashes', async () => {
    await withClients(library, 1, async ([client]) => {
      if (!client) throw new Error('a client expected');
      const prefix = `test-${library.name.replace(/\W/g, '')}-${Date.now()}:`;
      // A grant handed over more than `margin` late (a loaded machine: the reply took longer) is confirmed with a
      // second script call, by design; a wide margin keeps this count about the free key's own decision.
      const rateLimiter = createRedisRateLimiter({ redis: client.redis, prefix, margin: 10_000 });
      const keyId = 'a'.repeat(64);
      // Load the script first, so the count below is the decision's own.
      const warm = await rateLimiter.acquire('b'.repeat(64));
      if (typeof warm === 'function') warm();
      await client.command(['CONFIG', 'RESETSTAT']);
      const release = await rateLimiter.acquire(keyId);
      const stats = String(await client.command(['INFO', 'commandstats']));
      expect(stats).toMatch(/cmdstat_evalsha:calls=1,/);
      expect(stats).not.toMatch(/cmdstat_eval:/);
      if (typeof release === 'function') release();
      const keys = (await client.command(['KEYS', `${prefix}*`])) as string[];
      expect(keys).toHaveLength(2);
      for (const key of keys) {
        expect(key).toMatch(new RegExp(`^${prefix}[0-9a-f]{64}$`));
        expect(key).not.toContain(keyId);
        expect(Number(await client.command(['PTTL', key]))).toBeGreaterThan(0);
        expect(String(await client.command(['GET', key]))).not.toContain(keyId);
      }
    });
  });

  it('lets a call aborted while waiting leave at once, and gives its reservation back', async () => {
    await withClients(library, 2, async ([a, b]) => {
      if (!a || !b) throw new Error('two clients expected');
      const options = { interval: 2000, margin: 25, waitForAnswer: false } as const;
      const first = createRedisRateLimiter({ redis: a.redis, ...options });
      const spy = spyScript(b.redis);
      const second = createRedisRateLimiter({ redis: spy.redis, ...options });
      const keyId = freshKey('abort').padEnd(64, '0');
      const holder = await first.acquire(keyId);
      const held = await keyState(a, keyId);
      const controller = new AbortController();
      const waiting = second.acquire(keyId, controller.signal);
      // Redis told it to come back later: it is waiting for its turn.
      await spy.next((call) => call.op === 'acquire' && call.reply?.[0] === 0);
      controller.abort(new Error('caller gave up'));
      // It leaves while the holder still holds the key: it did not wait for its turn.
      await expect(waiting).rejects.toThrow('caller gave up');
      if (typeof holder !== 'function') throw new Error('a release function expected');
      // Its place was given back: Redis holds no waiter for the key, and the latest grant is still the holder's.
      await spy.next((call) => call.op === 'cancel');
      const afterCancel = await keyState(a, keyId);
      expect(afterCancel.ls).toBe(held.ls);
      expect(Object.keys(afterCancel.q ?? {})).toEqual([]);
      holder();
      // So the next caller gets the slot right after the holder's (interval + margin on Redis's clock, or later if it
      // asked later), not the one after the aborted call's.
      const next = await createRedisRateLimiter({ redis: b.redis, ...options }).acquire(keyId);
      const granted = (await keyState(a, keyId)).ls ?? Number.NaN;
      const now = await redisTime(a);
      expect(granted).toBeGreaterThanOrEqual((held.ls ?? Number.NaN) + 2025);
      expect(granted).toBeLessThanOrEqual(Math.max(now, (held.ls ?? Number.NaN) + 2025));
      if (typeof next === 'function') next();
    });
  });

  it("falls back to the in-process limiter when Redis hangs ('local'), warning once", async () => {
    const hung = await startHungServer();
    const server = await startCountingServer();
    const client = await library.connect(hung.port, false);
    try {
      const logger = recordingLogger();
      const rateLimiter = createRedisRateLimiter({
        redis: client.redis,
        timeout: 200,
        interval: INTERVAL,
        waitForAnswer: true,
        logger,
      });
      const sends: Send[] = [];
      const service = new ServiceClient({
        apiKey: freshKey('hung'),
        baseUrl: server.baseUrl,
        rateLimiter,
        fetch: stampingFetch(sends),
      });
      const results = await Promise.allSettled([0, 1, 2].map((i) => service.createEwayBill(`h${i}`, validModel())));
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      expect(server.arrivals).toHaveLength(3);
      expectSpacedSends(sends, server, INTERVAL);
      expect(logger.warnings).toHaveLength(1);
      expect(logger.warnings[0]).toMatch(/did not answer .* within 200 ms/);
    } finally {
      await client.close();
      await hung.close();
      await server.close();
    }
  });

  it("rejects with RateLimiterUnavailableError and sends nothing when Redis hangs ('fail')", async () => {
    const hung = await startHungServer();
    const server = await startCountingServer();
    const client = await library.connect(hung.port, false);
    try {
      const rateLimiter = createRedisRateLimiter({ redis: client.redis, timeout: 200, onUnavailable: 'fail' });
      const service = new ServiceClient({ apiKey: freshKey('fail'), baseUrl: server.baseUrl, rateLimiter });
      const error = await service.createEwayBill('f1', validModel()).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(RateLimiterUnavailableError);
      expect(error).toMatchObject({ code: 'RATE_LIMITER_UNAVAILABLE', mayHaveSucceeded: false });
      expect((error as Error).message).toMatch(/not sent/);
      expect(server.arrivals).toHaveLength(0);
    } finally {
      await client.close();
      await hung.close();
      await server.close();
    }
  });

  it('settles every call when Redis restarts mid-run, sends none twice, and goes back to Redis', async () => {
    const server = await startCountingServer();
    const apiKey = freshKey('restart');
    await withClients(library, 2, async (clients) => {
      const logger = recordingLogger();
      const warned = new Promise<void>((resolve) => {
        logger.warn = (message: string) => {
          logger.warnings.push(message);
          resolve();
        };
      });
      const services = clients.map(
        (client) =>
          new ServiceClient({
            apiKey,
            baseUrl: server.baseUrl,
            rateLimiter: createRedisRateLimiter({
              redis: client.redis,
              interval: 200,
              timeout: 300,
              recheckAfter: 200,
              logger,
            }),
          }),
      );
      const ids = services.flatMap((_, p) => [0, 1, 2, 3].map((i) => `r${p}-${i}`));
      const calls = Promise.allSettled(
        ids.map((id) => services[Number(id[1])]?.createEwayBill(id, validModel()) ?? Promise.reject()),
      );
      // Mid-run: once some requests went out, Redis stops; once a limiter noticed (its warning), it starts again.
      await server.arrived(1);
      await redis.stop();
      await warned;
      await redis.start();
      const results = await calls;
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(ids.length);
      expect(server.ids.toSorted()).toEqual(ids.toSorted());
      // Back on Redis: a call made once `recheckAfter` has passed writes its key again. Calls are made until one does
      // (each is spaced by the limiter, so the clock moves on), at most ten.
      let keys: string[] = [];
      for (let i = 0; i < 10 && keys.length === 0; i++) {
        await services[0]?.createEwayBill(`after-${i}`, validModel());
        keys = (await clients[0]?.command(['KEYS', 'invoicing-service-sdk:rate:*'])) as string[];
      }
      expect(keys.length).toBeGreaterThan(0);
    });
    await server.close();
  });
});

describe('createRedisRateLimiter details', () => {
  const library = LIBRARIES[0] as (typeof LIBRARIES)[number];

  it('moves the recorded start when a request is handed to fetch more than margin after its slot', async () => {
    await withClients(library, 2, async ([a, b]) => {
      if (!a || !b) throw new Error('two clients expected');
      const options = { interval: 500, margin: 10, waitForAnswer: false } as const;
      const keyId = freshKey('late-send').padEnd(64, '0');
      const spy = spyScript(a.redis);
      const first = await createRedisRateLimiter({ redis: spy.redis, ...options }).acquire(keyId);
      const granted = (await keyState(a, keyId)).ls ?? Number.NaN;
      // The request is handed to fetch 200 ms after its slot: the lateness is this test's subject (a busy process).
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (typeof first !== 'function') throw new Error('a release function expected');
      first.sent?.();
      // The report reached Redis: the key's recorded start moved to Redis's clock at the report, past the slot.
      await spy.next((call) => call.op === 'sent');
      const reported = (await keyState(a, keyId)).ls ?? Number.NaN;
      expect(reported).toBeGreaterThanOrEqual(granted + 200);
      const second = await createRedisRateLimiter({ redis: b.redis, ...options }).acquire(keyId);
      // The next grant is measured from the late send, not from the slot 200 ms before it.
      expect((await keyState(a, keyId)).ls).toBeGreaterThanOrEqual(reported + 510);
      first();
      if (typeof second === 'function') second();
    });
  });

  it('takes a new turn when its grant is handed over after Redis counted it as arrived (a stalled process)', async () => {
    await withClients(library, 1, async ([client]) => {
      if (!client) throw new Error('a client expected');
      let stalls = 1;
      const keyId = freshKey('stall').padEnd(64, '0');
      let firstGrant = Number.NaN;
      // The process is busy for 400 ms when the first grant comes back, past margin + answerWaitLimit (110 ms): the
      // stall is this test's subject. The grant Redis recorded is read before it.
      const spy = spyScript(client.redis, async () => {
        if (stalls-- <= 0) return;
        firstGrant = (await keyState(client, keyId)).ls ?? Number.NaN;
        for (const until = performance.now() + 400; performance.now() < until; );
      });
      const rateLimiter = createRedisRateLimiter({ redis: spy.redis, margin: 10, answerWaitLimit: 100 });
      const release = await rateLimiter.acquire(keyId);
      // Not sent 400 ms late on a slot Redis already counted as arrived: the late grant could not be confirmed, and a
      // new turn was taken, interval + margin after the first grant on Redis's clock.
      expect(spy.calls.map((call) => [call.op, call.reply?.[0]]).slice(0, 3)).toEqual([
        ['acquire', 1],
        ['start', 0],
        ['acquire', expect.any(Number)],
      ]);
      expect((await keyState(client, keyId)).ls).toBeGreaterThanOrEqual(firstGrant + 1010);
      if (typeof release === 'function') release();
    });
  });

  it('confirms a late grant again when the confirmation itself came back late (a busy process, bench:redis-scale)', async () => {
    await withClients(library, 2, async ([a, b]) => {
      if (!a || !b) throw new Error('two clients expected');
      const options = { interval: 500, margin: 10, answerWaitLimit: 10_000 } as const;
      const keyId = freshKey('late-confirm').padEnd(64, '0');
      // Process A's answers wait in its socket (this test's subject: a busy process): the grant 50 ms (> margin:
      // confirmed with `start`), then that confirmation 200 ms. Redis recorded A's start when it confirmed; process B
      // asks meanwhile, once that confirmation's reply is in A's hands.
      let delays = [50, 200];
      let confirmed: () => void = () => {};
      const aConfirmed = new Promise<void>((resolve) => {
        confirmed = resolve;
      });
      const spy = spyScript(a.redis, async (call) => {
        if (call.op === 'start') confirmed();
        const delay = delays.shift() ?? 0;
        if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      });
      const first = createRedisRateLimiter({ redis: spy.redis, ...options }).acquire(keyId);
      await aConfirmed;
      const second = createRedisRateLimiter({ redis: b.redis, ...options }).acquire(keyId);
      // Each request is sent when its limiter hands its slot over: the send time (Date.now()) is reported, as the
      // client reports it when it hands the request to fetch.
      const send = (release: Awaited<typeof first>) => {
        if (typeof release === 'function') release.sent?.();
        return [release, Date.now()] as const;
      };
      const [[releaseA, aAt], [releaseB, bAt]] = await Promise.all([first.then(send), second.then(send)]);
      // A was sent about 250 ms after it asked; B, interval after that, not after the start A confirmed at 50 ms.
      expect(Math.abs(bAt - aAt)).toBeGreaterThanOrEqual(500);
      // A's first confirmation came back late, so it confirmed again: the start Redis recorded for A is that of its
      // last confirmation, and B's grant is interval + margin from it (on Redis's clock), not from the start A
      // confirmed first. Both slots are still held (answerWaitLimit keeps them for 10 s), so Redis shows both.
      expect(spy.calls.filter((call) => call.op === 'start').length).toBeGreaterThanOrEqual(2);
      const starts = Object.values((await keyState(a, keyId)).fl ?? {})
        .map((slot) => (slot as { s: number }).s)
        .toSorted((x, y) => x - y);
      expect(starts).toHaveLength(2);
      expect((starts[1] ?? Number.NaN) - (starts[0] ?? Number.NaN)).toBeGreaterThanOrEqual(510);
      const confirmedLast = spy.calls.findLast((call) => call.op === 'start');
      expect(confirmedLast?.reply?.[0]).toBe(1);
      delays = [];
      if (typeof releaseA === 'function') releaseA();
      if (typeof releaseB === 'function') releaseB();
    });
  });

  it('falls back even when the logger throws', async () => {
    const hung = await startHungServer();
    const client = await library.connect(hung.port, false);
    try {
      const logger = {
        warn: () => {
          throw new Error('logger broke');
        },
      };
      const rateLimiter = createRedisRateLimiter({ redis: client.redis, timeout: 100, logger });
      const release = await rateLimiter.acquire('c'.repeat(64));
      expect(typeof release).toBe('function');
      if (typeof release === 'function') release();
    } finally {
      await client.close();
      await hung.close();
    }
  });

  it('rejects a key id that is not a string before taking any turn', async () => {
    const rateLimiter = createRedisRateLimiter({ redis: { evalSha: async () => [1, 0], eval: async () => [1, 0] } });
    await expect(rateLimiter.acquire(42 as never)).rejects.toThrow(/keyId must be a string/);
  });
});

describe('createRedisRateLimiter options', () => {
  const redisLike = { evalSha: async () => [1, 0], eval: async () => [1, 0] };

  it('names a bad option and what it takes', () => {
    expect(() => createRedisRateLimiter({ redis: {} as never })).toThrow(/redis must be an ioredis client/);
    expect(() => createRedisRateLimiter({ redis: redisLike, interval: 0 })).toThrow(
      /interval must be a finite number >= 1/,
    );
    expect(() => createRedisRateLimiter({ redis: redisLike, answerWaitLimit: Number.POSITIVE_INFINITY })).toThrow(
      /answerWaitLimit must be a finite number/,
    );
    expect(() => createRedisRateLimiter({ redis: redisLike, onUnavailable: 'retry' as never })).toThrow(
      /onUnavailable must be 'local' or 'fail'/,
    );
    expect(() => createRedisRateLimiter({ redis: redisLike, logger: {} as never })).toThrow(/logger must have a warn/);
  });
});
