import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisDeadlineError, withDeadline } from '../../src/redis/redis-client.js';
import { LIBRARIES } from './clients.js';
import { startRedis, type TestRedis } from './redis-server.js';

let redis: TestRedis;

beforeAll(async () => {
  redis = await startRedis();
}, 300_000);
afterAll(() => redis?.stop());

describe('withDeadline', () => {
  it('rejects with RedisDeadlineError when no answer comes', async () => {
    await expect(withDeadline(() => new Promise(() => {}), 30, 'PING')).rejects.toThrow(RedisDeadlineError);
    await expect(withDeadline(() => new Promise(() => {}), 30, 'PING')).rejects.toThrow(
      'Redis did not answer PING within 30 ms',
    );
  });

  it('lets an answer that arrived while the event loop was stalled win over its expired deadline', async () => {
    const client = await (LIBRARIES[0] as (typeof LIBRARIES)[number]).connect(redis.port);
    try {
      const answer = withDeadline(() => client.command(['PING']), 50, 'PING');
      // The process is busy past the deadline; redis-server (another process) has answered by the time it is free.
      const until = performance.now() + 300;
      while (performance.now() < until) {
        // busy
      }
      await expect(answer).resolves.toBe('PONG');
    } finally {
      await client.close();
    }
  });

  it('turns a synchronous throw of the client into a rejection', async () => {
    await expect(
      withDeadline(
        () => {
          throw new Error('The client is closed');
        },
        30,
        'PING',
      ),
    ).rejects.toThrow('The client is closed');
  });
});
