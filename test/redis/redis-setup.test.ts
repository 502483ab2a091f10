// Issue 17, findings 6 and 7: a Redis that can evict the SDK's keys is reported; a permission or configuration error
// is not an outage (a typed error, nothing sent, whatever onUnavailable says); the fall-back while Redis is away is
// conservative when several processes share a key. Against a real redis-server started here.
import { createHash } from 'node:crypto';
import { ServiceClient } from 'invoicing-service-sdk';
import {
  createRedisDedupeStore,
  createRedisRateLimiter,
  RateLimiterConfigurationError,
} from 'invoicing-service-sdk/redis';
import IoRedis5 from 'ioredis5';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freshKey, validModel } from '../helpers/model.js';
import { LIBRARIES } from './clients.js';
import { expectSpacedSends, type Send, stampingFetch, startCountingServer } from './counting-server.js';
import { startHungServer, startRedis, type TestRedis } from './redis-server.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
}, 300_000);
afterAll(() => redis?.stop());

const hex = (text: string) => createHash('sha256').update(text).digest('hex');

function recordingLogger() {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message), debug: () => {} };
}

describe.each(LIBRARIES)('eviction settings, with $name', (library) => {
  it('warns once, naming the policy and the fix, when Redis can evict the SDK keys; not under noeviction', async () => {
    const client = await library.connect(redis.port);
    try {
      await client.command(['CONFIG', 'SET', 'maxmemory', '104857600']);
      await client.command(['CONFIG', 'SET', 'maxmemory-policy', 'volatile-lru']);
      const logger = recordingLogger();
      const limiter = createRedisRateLimiter({ redis: client.redis, logger, interval: 10, margin: 0 });
      const store = createRedisDedupeStore({ redis: client.redis, logger });
      for (let i = 0; i < 3; i++) (await limiter.acquire(`k-${i}`))?.();
      await store.claim('evt-1', 1000, 'token-1');
      await vi.waitFor(() => expect(logger.warnings).toHaveLength(2), { timeout: 5000, interval: 20 });
      for (const warning of logger.warnings) {
        expect(warning).toMatch(/maxmemory-policy volatile-lru/);
        expect(warning).toMatch(/Set maxmemory-policy noeviction/);
      }

      await client.command(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
      const quiet = recordingLogger();
      // The check is one INFO round trip: the client is watched for it, and once it is answered (and a turn has let the
      // check act on the answer), nothing must have been said.
      const infos: Promise<unknown>[] = [];
      const watched = new Proxy(client.redis as object, {
        get(target, property) {
          const value = Reflect.get(target, property);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            const result = value.apply(target, args);
            const first = Array.isArray(args[0]) ? args[0][0] : args[0];
            if (property === 'info' || String(first).toUpperCase() === 'INFO') infos.push(Promise.resolve(result));
            return result;
          };
        },
      });
      const calm = createRedisRateLimiter({ redis: watched as never, logger: quiet, interval: 10, margin: 0 });
      (await calm.acquire('k-calm'))?.();
      await vi.waitFor(() => expect(infos).toHaveLength(1), { timeout: 10_000, interval: 5 });
      await Promise.allSettled(infos);
      await new Promise((resolve) => setImmediate(resolve));
      expect(quiet.warnings).toEqual([]);
    } finally {
      await client.command(['CONFIG', 'SET', 'maxmemory', '0']);
      await client.command(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
      await client.close();
    }
  });
});

describe('configuration errors are not outages', () => {
  it('a Redis user without script rights (NOPERM): a typed error naming EVALSHA, nothing sent, even with local', async () => {
    const admin = await LIBRARIES[0]?.connect(redis.port);
    await admin?.command(['ACL', 'SETUSER', 'noscript', 'on', '>word-password', '~*', '+@all', '-eval', '-evalsha']);
    const Redis = IoRedis5 as unknown as new (
      options: object,
    ) => { on(event: 'error', listener: () => void): unknown; disconnect(): void };
    const limited = new Redis({
      port: redis.port,
      host: '127.0.0.1',
      username: 'noscript',
      password: 'word-password',
    });
    limited.on('error', () => {});
    const service = await startCountingServer();
    try {
      const logger = recordingLogger();
      const client = new ServiceClient({
        apiKey: freshKey('noperm'),
        baseUrl: service.baseUrl,
        preflight: 'off',
        maxRetries: 0,
        rateLimiter: createRedisRateLimiter({ redis: limited as never, logger, onUnavailable: 'local' }),
      });
      for (let i = 0; i < 3; i++) {
        const error = await client.createEwayBill(`doc_${i}`, validModel()).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(RateLimiterConfigurationError);
        expect((error as Error).message).toMatch(/may not run the rate-limit script.*\+evalsha \+eval/);
        expect((error as RateLimiterConfigurationError).mayHaveSucceeded).toBe(false);
      }
      expect(service.arrivals).toHaveLength(0);
      expect(logger.warnings.filter((w) => /unavailable/.test(w))).toEqual([]);
    } finally {
      limited.disconnect();
      await admin?.command(['ACL', 'DELUSER', 'noscript']);
      await admin?.close();
      await service.close();
    }
  });

  it("a key of the wrong type at the limiter's prefix (WRONGTYPE): a typed error, nothing sent", async () => {
    const admin = await LIBRARIES[0]?.connect(redis.port);
    const service = await startCountingServer();
    const apiKey = freshKey('wrongtype');
    const prefix = 'wrongtype-test:';
    try {
      await admin?.command(['HSET', prefix + hex(hex(apiKey)), 'field', 'value']);
      const client = new ServiceClient({
        apiKey,
        baseUrl: service.baseUrl,
        preflight: 'off',
        maxRetries: 0,
        rateLimiter: createRedisRateLimiter({ redis: admin?.redis as never, prefix, logger: recordingLogger() }),
      });
      const error = await client.createEwayBill('doc_1', validModel()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimiterConfigurationError);
      expect((error as Error).message).toMatch(/another type sits at the rate limiter's prefix/);
      expect(service.arrivals).toHaveLength(0);
    } finally {
      await admin?.command(['DEL', prefix + hex(hex(apiKey))]);
      await admin?.close();
      await service.close();
    }
  });
});

type IoClient = { on(event: 'error', listener: () => void): unknown; disconnect(): void };
const IoRedis = IoRedis5 as unknown as new (options: object) => IoClient;

describe('credentials Redis refuses are not outages', () => {
  let guarded: TestRedis;
  beforeAll(async () => {
    guarded = await startRedis(['--requirepass', 'lantern-orchard-pw']);
  }, 300_000);
  afterAll(() => guarded?.stop());

  it.each([
    ['a wrong password (WRONGPASS)', { password: 'not-the-password' }, /WRONGPASS/],
    ['no password (NOAUTH)', {}, /NOAUTH/],
  ])('%s: a typed error naming the credentials, nothing sent, even with local', async (_what, auth, code) => {
    const redisClient = new IoRedis({
      port: guarded.port,
      host: '127.0.0.1',
      ...auth,
      retryStrategy: () => 100,
      maxRetriesPerRequest: null,
    });
    redisClient.on('error', () => {});
    const service = await startCountingServer();
    try {
      const logger = recordingLogger();
      const client = new ServiceClient({
        apiKey: freshKey('auth'),
        baseUrl: service.baseUrl,
        preflight: 'off',
        maxRetries: 0,
        rateLimiter: createRedisRateLimiter({ redis: redisClient as never, logger, onUnavailable: 'local' }),
      });
      for (let i = 0; i < 2; i++) {
        const error = await client.createEwayBill(`doc_${i}`, validModel()).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(RateLimiterConfigurationError);
        expect((error as Error).message).toMatch(code);
        expect((error as Error).message).toMatch(/password/);
        expect((error as Error).message).not.toContain('lantern-orchard-pw');
      }
      expect(service.arrivals).toHaveLength(0);
      expect(logger.warnings.filter((w) => /unavailable/.test(w))).toEqual([]);
    } finally {
      redisClient.disconnect();
      await service.close();
    }
  });
});

describe('a client pointed at a read-only replica', () => {
  let primary: TestRedis;
  let replica: TestRedis;
  beforeAll(async () => {
    primary = await startRedis();
    replica = await startRedis(['--replicaof', '127.0.0.1', String(primary.port)]);
  }, 300_000);
  afterAll(async () => {
    await replica?.stop();
    await primary?.stop();
  });

  it('falls back as in an outage, with a warning that says the client points at a read-only replica', async () => {
    const redisClient = new IoRedis({ port: replica.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
    redisClient.on('error', () => {});
    const service = await startCountingServer();
    try {
      const logger = recordingLogger();
      const client = new ServiceClient({
        apiKey: freshKey('replica'),
        baseUrl: service.baseUrl,
        preflight: 'off',
        maxRetries: 0,
        rateLimiter: createRedisRateLimiter({ redis: redisClient as never, logger, onUnavailable: 'local' }),
      });
      await client.createEwayBill('doc_1', validModel());
      expect(service.arrivals).toHaveLength(1);
      const [warning, ...others] = logger.warnings.filter((w) => /unavailable/.test(w));
      expect(others).toEqual([]);
      expect(warning).toMatch(/READONLY/);
      expect(warning).toMatch(/points at a read-only replica/);
    } finally {
      redisClient.disconnect();
      await service.close();
    }
  });
});

describe('the fall-back while Redis is away', () => {
  it('with processes: 3, one process spaces a key interval × 3 apart until Redis answers', async () => {
    const hung = await startHungServer();
    const library = LIBRARIES[0];
    const client = await library?.connect(hung.port, false);
    const service = await startCountingServer();
    const sends: Send[] = [];
    try {
      const http = new ServiceClient({
        apiKey: freshKey('fallback'),
        baseUrl: service.baseUrl,
        preflight: 'off',
        fetch: stampingFetch(sends),
        rateLimiter: createRedisRateLimiter({
          redis: client?.redis as never,
          interval: 200,
          margin: 0,
          timeout: 100,
          processes: 3,
          logger: recordingLogger(),
        }),
      });
      for (let i = 0; i < 3; i++) await http.createEwayBill(`doc_${i}`, validModel());
      expect(service.arrivals).toHaveLength(3);
      // Sent 600 ms apart (3 × 200); the in-process limiter alone gives 200.
      expectSpacedSends(sends, service, 600);
    } finally {
      await client?.close();
      await service.close();
      await hung.close();
    }
  });

  it('refuses a processes option that is not a positive integer', () => {
    const shaped = { evalsha: async () => [1, 0], eval: async () => [1, 0], call: async () => '' };
    for (const processes of [0, 1.5, -1]) {
      expect(() => createRedisRateLimiter({ redis: shaped as never, processes })).toThrow(
        /processes must be an integer/,
      );
    }
  });
});
