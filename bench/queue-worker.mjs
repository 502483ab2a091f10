// One process of bench/queue.mjs's cross-process scenario: a Redis rate limiter of its own connection and one client of
// the shared key. Waits for its job, makes its calls, and reports when each was made (CLOCK_MONOTONIC) and settled.
import { createRequire } from 'node:module';
import { ServiceClient } from '../dist/index.js';
import { createRedisRateLimiter } from '../dist/redis.js';

const require = createRequire(import.meta.url);
const Redis = require('ioredis5');
const now = () => Number(process.hrtime.bigint()) / 1e6;
const job = JSON.parse(process.env.JOB);
const redis = new Redis({ port: job.redisPort, host: '127.0.0.1' });
await new Promise((resolve) => redis.once('ready', resolve));
const client = new ServiceClient({
  apiKey: job.apiKey,
  baseUrl: job.baseUrl,
  rateLimiter: createRedisRateLimiter({ redis }),
  maxRetries: 0,
});
process.send({ type: 'ready' });
process.on('message', async (message) => {
  if (message?.type === 'status') {
    process.send({ type: 'status', status: await client.queueStatus() });
    return;
  }
  if (message?.type !== 'go') return;
  const made = [];
  const settled = await Promise.allSettled(
    Array.from({ length: message.count }, (_, i) => {
      made.push(now());
      return client.request('GET', `/${message.name}/${i}`, { priority: message.priority });
    }),
  );
  process.send({ type: 'done', made, failed: settled.filter((s) => s.status === 'rejected').length });
  redis.disconnect();
});
