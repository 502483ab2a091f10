import { ServiceClient } from 'invoicing-service-sdk';
import { createRedisRateLimiter, RateLimiterUnavailableError } from 'invoicing-service-sdk/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKey, validModel } from '../helpers/model.js';
import { LIBRARIES, type TestClient } from './clients.js';
import { gaps, startCountingServer } from './counting-server.js';
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
    try {
      await withClients(library, 3, async (clients) => {
        const calls = clients.flatMap((client, p) => {
          const rateLimiter = createRedisRateLimiter({ redis: client.redis, interval: INTERVAL, waitForAnswer: true });
          const service = new ServiceClient({ apiKey, baseUrl: server.baseUrl, rateLimiter });
          return [0, 1, 2].map((i) => service.createEwayBill(`p${p}-${i}`, validModel()));
        });
        await Promise.all(calls);
      });
      expect(server.arrivals).toHaveLength(9);
      expect(new Set(server.ids).size).toBe(9);
      for (const gap of gaps(server.arrivals)) expect(gap).toBeGreaterThanOrEqual(INTERVAL);
      // Every process got turns before any finished all of its own (first come, first served across processes).
      expect(new Set(server.ids.slice(0, 3).map((id) => id.split('-')[0])).size).toBeGreaterThan(1);
    } finally {
      await server.close();
    }
  });

  it('starts the next request interval after the previous answer, across processes (waitForAnswer)', async () => {
    const server = await startCountingServer(150);
    const apiKey = freshKey('redis-answer');
    try {
      await withClients(library, 2, async (clients) => {
        const calls = clients.flatMap((client, p) => {
          const rateLimiter = createRedisRateLimiter({ redis: client.redis, interval: INTERVAL, waitForAnswer: true });
          const service = new ServiceClient({ apiKey, baseUrl: server.baseUrl, rateLimiter });
          return [0, 1].map((i) => service.createEwayBill(`p${p}-${i}`, validModel()));
        });
        await Promise.all(calls);
      });
      expect(server.arrivals).toHaveLength(4);
      for (let i = 1; i < 4; i++) {
        expect((server.arrivals[i] ?? 0) - (server.answers[i - 1] ?? Number.NaN)).toBeGreaterThanOrEqual(INTERVAL);
      }
    } finally {
      await server.close();
    }
  });

  it('by default spaces the starts only, deciding each in at most two Redis calls', async () => {
    const server = await startCountingServer(150);
    const apiKey = freshKey('redis-starts');
    const sends: number[] = [];
    try {
      await withClients(library, 2, async ([a, b]) => {
        if (!a || !b) throw new Error('two clients expected');
        await a.command(['CONFIG', 'RESETSTAT']);
        const services = [a, b].map(
          (client) =>
            new ServiceClient({
              apiKey,
              baseUrl: server.baseUrl,
              rateLimiter: createRedisRateLimiter({ redis: client.redis, interval: INTERVAL }),
              fetch: (input, init) => {
                sends.push(performance.now());
                return fetch(input, init);
              },
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
        // One call per request, a second when it had to wait for its turn, plus at most one EVAL per connection to
        // load the script (NOSCRIPT) and one `sent` report per request that a loaded machine handed to fetch late.
        expect(scriptCalls).toBeGreaterThanOrEqual(4);
        expect(scriptCalls).toBeLessThanOrEqual(2 * 4 + 2 + 4);
      });
      // Starts only spaces the starts (fetch called); arrivals may jitter, which is what waitForAnswer is for.
      expect(sends).toHaveLength(4);
      for (const gap of gaps(sends)) expect(gap).toBeGreaterThanOrEqual(INTERVAL);
      // Starts only: some request started less than interval after the previous answer.
      const afterAnswers = server.arrivals.slice(1).map((at, i) => at - (server.answers[i] ?? 0));
      expect(Math.min(...afterAnswers)).toBeLessThan(INTERVAL);
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
      const options = { interval: 2000, waitForAnswer: false } as const;
      const first = createRedisRateLimiter({ redis: a.redis, ...options });
      const second = createRedisRateLimiter({ redis: b.redis, ...options });
      const keyId = freshKey('abort').padEnd(64, '0');
      const holder = await first.acquire(keyId);
      const controller = new AbortController();
      const waiting = second.acquire(keyId, controller.signal);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const abortedAt = performance.now();
      controller.abort(new Error('caller gave up'));
      await expect(waiting).rejects.toThrow('caller gave up');
      expect(performance.now() - abortedAt).toBeLessThan(500);
      if (typeof holder === 'function') holder();
      // The aborted call's slot (2 s after the holder) was given back: the next caller gets it, not the one after.
      const askedAt = performance.now();
      const next = await createRedisRateLimiter({ redis: b.redis, ...options }).acquire(keyId);
      expect(performance.now() - askedAt).toBeLessThan(3000);
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
      const service = new ServiceClient({ apiKey: freshKey('hung'), baseUrl: server.baseUrl, rateLimiter });
      const results = await Promise.allSettled([0, 1, 2].map((i) => service.createEwayBill(`h${i}`, validModel())));
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      expect(server.arrivals).toHaveLength(3);
      for (const gap of gaps(server.arrivals)) expect(gap).toBeGreaterThanOrEqual(INTERVAL);
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
      await new Promise((resolve) => setTimeout(resolve, 300));
      await redis.stop();
      await new Promise((resolve) => setTimeout(resolve, 400));
      await redis.start();
      const results = await calls;
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(ids.length);
      expect(server.ids.toSorted()).toEqual(ids.toSorted());
      // Back on Redis: a call after the restart writes its key again.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await services[0]?.createEwayBill('after', validModel());
      const keys = (await clients[0]?.command(['KEYS', 'invoicing-service-sdk:rate:*'])) as string[];
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
      const first = await createRedisRateLimiter({ redis: a.redis, ...options }).acquire(keyId);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const sentAt = performance.now();
      if (typeof first !== 'function') throw new Error('a release function expected');
      first.sent?.();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const second = await createRedisRateLimiter({ redis: b.redis, ...options }).acquire(keyId);
      // Measured from the late send, not from the slot 200 ms before it.
      expect(performance.now() - sentAt).toBeGreaterThanOrEqual(500);
      first();
      if (typeof second === 'function') second();
    });
  });

  it('takes a new turn when its grant is handed over after Redis counted it as arrived (a stalled process)', async () => {
    await withClients(library, 1, async ([client]) => {
      if (!client) throw new Error('a client expected');
      let stalls = 1;
      // The process is busy for 400 ms when the first grant comes back, past margin + answerWaitLimit (110 ms).
      const stalling = new Proxy(client.redis as object, {
        get(target, property) {
          const value = Reflect.get(target, property);
          if ((property !== 'evalsha' && property !== 'eval') || typeof value !== 'function')
            return typeof value === 'function' ? value.bind(target) : value;
          return (...args: unknown[]) =>
            (value.apply(target, args) as Promise<unknown>).then((reply) => {
              if (stalls-- > 0) for (const until = performance.now() + 400; performance.now() < until; );
              return reply;
            });
        },
      });
      const rateLimiter = createRedisRateLimiter({
        redis: stalling as never,
        margin: 10,
        answerWaitLimit: 100,
      });
      const askedAt = performance.now();
      const release = await rateLimiter.acquire(freshKey('stall').padEnd(64, '0'));
      // Not sent 400 ms late on a slot Redis already counted as arrived: a new one, interval after that.
      expect(performance.now() - askedAt).toBeGreaterThanOrEqual(1000);
      if (typeof release === 'function') release();
    });
  });

  it('confirms a late grant again when the confirmation itself came back late (a busy process, bench:redis-scale)', async () => {
    await withClients(library, 2, async ([a, b]) => {
      if (!a || !b) throw new Error('two clients expected');
      const options = { interval: 500, margin: 10 } as const;
      const keyId = freshKey('late-confirm').padEnd(64, '0');
      const ops: string[] = [];
      // Process A's answers wait in its socket: the grant 50 ms (> margin: confirmed with `start`), then that
      // confirmation 200 ms. Redis recorded A's start when it confirmed; process B asks meanwhile.
      let delays = [50, 200];
      const late = new Proxy(a.redis as object, {
        get(target, property) {
          const value = Reflect.get(target, property);
          if ((property !== 'evalsha' && property !== 'eval') || typeof value !== 'function')
            return typeof value === 'function' ? value.bind(target) : value;
          return (...args: unknown[]) => {
            ops.push(String(args[3]));
            return (value.apply(target, args) as Promise<unknown>).then((reply) => {
              const delay = delays.shift() ?? 0;
              return delay ? new Promise((resolve) => setTimeout(() => resolve(reply), delay)) : reply;
            });
          };
        },
      });
      const t0 = performance.now();
      const first = createRedisRateLimiter({ redis: late as never, ...options }).acquire(keyId);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const second = createRedisRateLimiter({ redis: b.redis, ...options }).acquire(keyId);
      const [releaseA, aAt] = await first.then((release) => [release, performance.now() - t0] as const);
      const [releaseB, bAt] = await second.then((release) => [release, performance.now() - t0] as const);
      // A sends about 250 ms after it asked: B's start is interval after that, not after the start A confirmed at 50 ms.
      expect(aAt).toBeGreaterThanOrEqual(250);
      expect(bAt - aAt).toBeGreaterThanOrEqual(500);
      expect(ops.filter((op) => op === 'start').length).toBeGreaterThanOrEqual(2);
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
