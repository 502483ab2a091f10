// One process of test/redis/priority-processes.test.ts: a Redis rate limiter (default options) on its own connection
// makes COUNT calls of KEY_ID at once with PRIORITY (and MAX_QUEUE_WAIT, when set), and prints one JSON line per event:
// each reply of the limiter's script (`script`), each grant (`granted`, then released at once: sent, answered) and each
// rejection (`rejected`), then `done`. SKEW_MS moves this process's Date.now() away from Redis's clock; WAIT_FOR_ANSWER=1
// makes the limiter wait for answers; HOLD=1 keeps each grant until a line comes on stdin. Built by tsup
// (test/cli/cli-process.ts) and run by Node; the test kills it or lets it end.
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import type { RedisLike } from '../../src/redis/index.js';
import { createRedisRateLimiter } from '../../src/redis/index.js';
import type { Priority } from '../../src/throttle/priority-queue.js';

const { REDIS_PORT, KEY_ID, COUNT, PRIORITY, MAX_QUEUE_WAIT, SKEW_MS, WAIT_FOR_ANSWER, HOLD } = process.env;
if (SKEW_MS) {
  const realNow = Date.now;
  Date.now = () => realNow() + Number(SKEW_MS);
}
const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

// Loaded at run time from node_modules: bundled into ESM, ioredis's own `require` calls fail.
const IoRedis = createRequire(import.meta.url)('ioredis5') as new (
  options: object,
) => RedisLike & { disconnect(): void; evalsha(...args: unknown[]): Promise<unknown> };
const redis = new IoRedis({ host: '127.0.0.1', port: Number(REDIS_PORT) });
// The script's replies, as they come: ioredis's evalsha(sha, 1, key, op, ...).
const spied = new Proxy(redis, {
  get(target, property) {
    const value = Reflect.get(target, property);
    if (typeof value !== 'function') return value;
    if (property !== 'evalsha' && property !== 'eval') return value.bind(target);
    return async (...args: unknown[]) => {
      const reply = await value.apply(target, args);
      print({ event: 'script', op: String(args[3]), reply: (reply as unknown[]).map(Number) });
      return reply;
    };
  },
});
const limiter = createRedisRateLimiter({
  redis: spied as RedisLike,
  ...(WAIT_FOR_ANSWER === '1' ? { waitForAnswer: true, answerWaitLimit: 30_000 } : {}),
});
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const maxQueueWait = MAX_QUEUE_WAIT ? Number(MAX_QUEUE_WAIT) : undefined;
const calls = Array.from({ length: Number(COUNT) }, (_, i) =>
  limiter
    .acquire(KEY_ID as string, undefined, {
      priority: PRIORITY as Priority,
      maxQueueWait,
      deadline: maxQueueWait === undefined ? undefined : Date.now() + maxQueueWait,
    })
    .then(
      async (release) => {
        print({ event: 'granted', call: i });
        if (HOLD === '1') await lines.next();
        release?.sent?.();
        release?.();
      },
      (error: { code?: string; mayHaveSucceeded?: boolean }) =>
        print({ event: 'rejected', call: i, code: error.code, mayHaveSucceeded: error.mayHaveSucceeded }),
    ),
);
await Promise.all(calls);
print({ event: 'done' });
redis.disconnect();
process.stdin.destroy();
