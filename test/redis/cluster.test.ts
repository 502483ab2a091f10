// Issue 28, item 1 on Redis Cluster: a key's own budget and its rateLimitKey's sit under two Redis keys, which may
// hash to two slots on two nodes. The limiter takes them one after the other (in the same order in every process),
// and gives a grant back when the other budget's wait is aborted.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RateLimiter, ServiceClient } from 'invoicing-service-sdk';
import { createRedisRateLimiter, type RedisLike } from 'invoicing-service-sdk/redis';
import IoRedis5 from 'ioredis5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACQUIRE_ALL,
  type MultiBudgetLimiter,
  type ReleaseSlot,
  rateLimitKeyId,
} from '../../src/throttle/rate-limiter.js';
import { listenOnLoopback } from '../helpers/loopback.js';
import { freshKey } from '../helpers/model.js';
import { startCluster, type TestCluster } from './redis-cluster.js';

interface ClusterClient {
  call(command: string, ...args: string[]): Promise<unknown>;
  on(event: 'error', listener: () => void): unknown;
  once(event: 'ready', listener: () => void): unknown;
  disconnect(): void;
}
const Cluster = (IoRedis5 as unknown as { Cluster: new (nodes: object[], options?: object) => ClusterClient }).Cluster;

const PREFIX = 'invoicing-service-sdk:rate:';
const redisKeyOf = (keyId: string) => PREFIX + createHash('sha256').update(keyId).digest('hex');

let cluster: TestCluster;
let redis: ClusterClient;

beforeAll(async () => {
  cluster = await startCluster();
  redis = new Cluster(
    cluster.ports.map((port) => ({ host: '127.0.0.1', port })),
    { clusterRetryStrategy: () => 100 },
  );
  redis.on('error', () => {});
  await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
}, 120_000);
afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
});

/** The node (its first slot range's owner) a Redis key's slot belongs to, by `CLUSTER KEYSLOT` and `CLUSTER SLOTS`. */
async function nodeOf(key: string): Promise<number> {
  const slot = Number(await redis.call('CLUSTER', 'KEYSLOT', key));
  const ranges = (await redis.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
  const range = ranges.find(([from, to]) => slot >= from && slot <= to);
  return range?.[2][1] as number;
}

/**
 * An API key and a rateLimitKey whose two budgets sit on two different nodes, the key's budget first in the order
 * the limiter takes them (so it is the one granted while the name's is awaited). Found among a bounded number of names.
 */
async function splitBudgets(label: string) {
  const apiKey = freshKey(label);
  const keyId = await rateLimitKeyId(apiKey);
  for (let i = 0; i < 200; i++) {
    const name = `company-${label}-${i}`;
    const nameId = await rateLimitKeyId(`budget:${name}`);
    if (keyId < nameId && (await nodeOf(redisKeyOf(keyId))) !== (await nodeOf(redisKeyOf(nameId)))) {
      return { apiKey, name, keyId, nameId };
    }
  }
  throw new Error('no name put the two budgets on two nodes');
}

/** The rate-limit script's state of one budget on the cluster. */
async function stateOf(keyId: string): Promise<{ ls?: number; fl?: Record<string, unknown> } | undefined> {
  const raw = (await redis.call('GET', redisKeyOf(keyId))) as string | null;
  return raw === null ? undefined : JSON.parse(raw);
}

/** Waits until `check` holds, checking a bounded number of times. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const gaps = (times: readonly number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted.slice(1).map((time, i) => time - (sorted[i] as number));
};

describe('createRedisRateLimiter on a real Redis Cluster (three masters), two budgets on two nodes', () => {
  it("each budget's sends are at least 1 s apart across two limiters (two processes' worth)", async () => {
    const { apiKey, name } = await splitBudgets('cluster-spacing');
    const sends: Record<'named' | 'plain' | 'sameCompany', number[]> = { named: [], plain: [], sameCompany: [] };
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"success":true}');
      });
    });
    const { port, close } = await listenOnLoopback(server);
    try {
      /** A fetch that records when the SDK handed it each request of one client (`Date.now()`). */
      const stamping =
        (who: keyof typeof sends): typeof globalThis.fetch =>
        (input, init) => {
          sends[who].push(Date.now());
          return globalThis.fetch(input, init);
        };
      // Each limiter has its own in-process stage, as two processes do: only Redis makes them share a budget.
      const first = createRedisRateLimiter({ redis: redis as unknown as RedisLike, onUnavailable: 'fail' });
      const second = createRedisRateLimiter({ redis: redis as unknown as RedisLike, onUnavailable: 'fail' });
      const baseUrl = `http://127.0.0.1:${port}/api/partner`;
      const common = { baseUrl, maxRetries: 0 };
      const named = new ServiceClient({
        ...common,
        apiKey,
        rateLimitKey: name,
        rateLimiter: first,
        fetch: stamping('named'),
      });
      const plain = new ServiceClient({ ...common, apiKey, rateLimiter: second, fetch: stamping('plain') });
      const sameCompany = new ServiceClient({
        ...common,
        apiKey: freshKey('cluster-other'),
        rateLimitKey: name,
        rateLimiter: second,
        fetch: stamping('sameCompany'),
      });
      const clients = [named, plain, sameCompany, named, plain, sameCompany];
      await Promise.all(clients.map((client, i) => client.request('GET', `/v2/doc/${i}`)));
      expect([sends.named, sends.plain, sends.sameCompany].map((s) => s.length)).toEqual([2, 2, 2]);
      // The key's budget: its sends, whichever client (naming the company or not) made them.
      for (const gap of gaps([...sends.named, ...sends.plain])) expect(gap).toBeGreaterThanOrEqual(1000);
      // The name's budget: the sends of the clients that name it, whichever key they hold.
      for (const gap of gaps([...sends.named, ...sends.sameCompany])) expect(gap).toBeGreaterThanOrEqual(1000);
    } finally {
      await close();
    }
  }, 60_000);

  it("an abort while the name's budget is awaited gives the key's grant back on its own node, unused", async () => {
    const { keyId, nameId } = await splitBudgets('cluster-give-back');
    const limiter = createRedisRateLimiter({
      redis: redis as unknown as RedisLike,
      onUnavailable: 'fail',
    }) as unknown as MultiBudgetLimiter;
    const other: RateLimiter = createRedisRateLimiter({ redis: redis as unknown as RedisLike, onUnavailable: 'fail' });
    // The name's budget was just used elsewhere: its next start is about 1 s away.
    const used = (await other.acquire(nameId)) as ReleaseSlot;
    used.sent?.();
    used();
    const controller = new AbortController();
    const both = limiter[ACQUIRE_ALL]([keyId, nameId], controller.signal);
    both.catch(() => {});
    // The key's budget is granted first (it sorts first) while the name's is awaited.
    await until(async () => Object.keys((await stateOf(keyId))?.fl ?? {}).length === 1, "the key's grant");
    expect((await stateOf(keyId))?.ls).toBeDefined();
    controller.abort();
    await expect(both).rejects.toMatchObject({ name: 'AbortError' });
    // Given back: no grant left in flight, and the key's latest start is what it was before (none).
    await until(async () => Object.keys((await stateOf(keyId))?.fl ?? {}).length === 0, 'the cancel');
    expect((await stateOf(keyId))?.ls).toBeUndefined();
  }, 60_000);
});
