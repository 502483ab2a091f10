// createRedisRateLimiter with priorities and deadlines: three limiters with their own connections (as three processes
// have) share one redis-server. The limiters wait for answers (waitForAnswer) and a third one holds the first request
// until every waiter is in line, so the order of the grants depends on the script alone, not on the machine's speed.
import { createRedisRateLimiter } from 'invoicing-service-sdk/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueTimeoutError } from '../../src/errors/transport-errors.js';
import { QUEUE_STATUS, type QueueStatus } from '../../src/throttle/queue-options.js';
import type { ReleaseSlot } from '../../src/throttle/rate-limiter.js';
import { LIBRARIES, type TestClient } from './clients.js';
import { keyState, spyScript } from './grants.js';
import { startRedis, type TestRedis } from './redis-server.js';

let redis: TestRedis;
const clients: TestClient[] = [];
let keyCount = 0;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await redis?.stop();
});

const OPTIONS = { interval: 100, margin: 5, waitForAnswer: true, answerWaitLimit: 30_000 } as const;

async function process_() {
  const client = await (LIBRARIES[0] as (typeof LIBRARIES)[number]).connect(redis.port);
  clients.push(client);
  const spy = spyScript(client.redis);
  return { client, spy, limiter: createRedisRateLimiter({ redis: spy.redis, ...OPTIONS }) };
}

/** Records each grant's name and releases it at once (sent, then answered). */
function take(granted: string[], name: string) {
  return (slot: unknown) => {
    granted.push(name);
    if (typeof slot === 'function') {
      (slot as ReleaseSlot).sent?.();
      (slot as ReleaseSlot)();
    }
  };
}

describe('the Redis rate limiter with priorities, across three limiters', () => {
  it("grants another process's high call before the low calls queued by the first, at the next slot", async () => {
    const keyId = `priority-${keyCount++}`;
    const [a, b, c] = [await process_(), await process_(), await process_()];
    const granted: string[] = [];
    const first = (await c.limiter.acquire(keyId)) as ReleaseSlot;
    const lows = Array.from({ length: 5 }, (_, i) =>
      a.limiter.acquire(keyId, undefined, { priority: 'low' }).then(take(granted, `low${i}`)),
    );
    // A's next low waits in Redis (its others wait in A); then B's high call is in line too.
    await a.spy.next((call) => call.op === 'acquire' && call.reply?.[0] === 0);
    const high = b.limiter.acquire(keyId, undefined, { priority: 'high' }).then(take(granted, 'high'));
    await b.spy.next((call) => call.op === 'acquire' && call.reply?.[0] === 0);
    // The first request is answered: the next slot is the high call's.
    first.sent?.();
    first();
    await Promise.all([high, ...lows]);
    expect(granted).toEqual(['high', 'low0', 'low1', 'low2', 'low3', 'low4']);
  });

  it('counts the other process waiters: a normal call behind them rejects at once, a high one waits', async () => {
    const keyId = `priority-${keyCount++}`;
    const [a, b, c] = [await process_(), await process_(), await process_()];
    const order: string[] = [];
    const first = (await c.limiter.acquire(keyId)) as ReleaseSlot;
    const queued = Array.from({ length: 10 }, () => a.limiter.acquire(keyId).then(take(order, 'a')));
    await a.spy.next((call) => call.op === 'acquire' && call.reply?.[0] === 0);
    // 10 normal calls of A at 105 ms each are ahead of B's normal call: its 500 ms are not enough.
    const error = await b.limiter
      .acquire(keyId, undefined, { priority: 'normal', deadline: Date.now() + 500, maxQueueWait: 500 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueueTimeoutError);
    expect(error).toMatchObject({ code: 'QUEUE_TIMEOUT', mayHaveSucceeded: false, maxQueueWait: 500 });
    // It left the line: B's ticket is not in Redis's queue.
    const waiting = (await keyState(a.client, keyId)).q as { id: string }[];
    expect(waiting).toHaveLength(1);
    // queueStatus from B counts A's waiters (in Redis and in A).
    const [status] = await (b.limiter as unknown as { [QUEUE_STATUS](ids: string[]): Promise<QueueStatus[]> })[
      QUEUE_STATUS
    ]([keyId]);
    expect(status?.waiting).toEqual({ high: 0, normal: 10, low: 0 });
    // A high call is not behind them: it waits within its time, and is granted first.
    const high = b.limiter
      .acquire(keyId, undefined, { priority: 'high', deadline: Date.now() + 5000 })
      .then(take(order, 'high'));
    await b.spy.next((call) => call.op === 'acquire' && call.reply?.[0] === 0);
    first.sent?.();
    first();
    await Promise.all([high, ...queued]);
    expect(order).toEqual(['high', ...Array.from({ length: 10 }, () => 'a')]);
  });
});
