// One process of test/redis/processes.test.ts: a ServiceClient with the Redis rate limiter (default options) makes
// COUNT calls of one key to the counting server (naming RATE_LIMIT_KEY when set, at PRIORITY when set), prints its
// sends, then exits. Built by tsup (test/cli/cli-process.ts) and run by Node.
import { createRequire } from 'node:module';
import { ServiceClient } from '../../src/index.js';
import type { RedisLike } from '../../src/redis/index.js';
import { createRedisRateLimiter } from '../../src/redis/index.js';
import type { Priority } from '../../src/throttle/priority-queue.js';
import { validModel } from '../helpers/model.js';
import { type Send, stampingFetch } from '../helpers/send-times.js';

// Loaded at run time from node_modules: bundled into ESM, ioredis's own `require` calls fail.
const IoRedis = createRequire(import.meta.url)('ioredis5') as new (
  options: object,
) => RedisLike & { disconnect(): void };
const { REDIS_PORT, BASE_URL, API_KEY, COUNT, NAME, RATE_LIMIT_KEY, PRIORITY } = process.env;
const redis = new IoRedis({ host: '127.0.0.1', port: Number(REDIS_PORT), lazyConnect: false });
const sends: Send[] = [];
const client = new ServiceClient({
  apiKey: API_KEY as string,
  baseUrl: BASE_URL as string,
  rateLimiter: createRedisRateLimiter({ redis }),
  rateLimitKey: RATE_LIMIT_KEY || undefined,
  maxRetries: 0,
  fetch: stampingFetch(sends),
});
try {
  for (let i = 0; i < Number(COUNT); i++) {
    await client.createEwayBill(`${NAME}-${i}`, validModel(), PRIORITY ? { priority: PRIORITY as Priority } : {});
  }
} finally {
  redis.disconnect();
}
// When this process handed each request to fetch (Date.now()): the test checks these across the processes.
process.stdout.write(`${JSON.stringify(sends)}\n`);
