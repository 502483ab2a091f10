// One of the Node processes of bench/redis-processes.mjs: its own Redis connection, one Redis rate limiter, one
// ServiceClient per key. Waits for 'go', fires every call of its share at once, and reports how they settled.
import { createRequire } from 'node:module';
import { ServiceClient } from '../dist/index.js';
import { createRedisRateLimiter } from '../dist/redis.js';
import { buildEwayBillModel } from '../dist/testing.js';

const require = createRequire(import.meta.url);
const job = JSON.parse(process.env.JOB);
const warnings = [];
const logger = { warn: (message) => warnings.push(message), debug: () => {} };

let redis;
let close;
if (job.library === 'node-redis') {
  const { createClient } = require('redis5');
  redis = createClient({ url: `redis://127.0.0.1:${job.redisPort}`, socket: { reconnectStrategy: () => 100 } });
  redis.on('error', () => {});
  const connecting = redis.connect();
  if (job.waitReady) await connecting;
  else connecting.catch(() => {});
  close = () => redis.destroy();
} else {
  const Redis = require('ioredis5');
  redis = new Redis({ port: job.redisPort, host: '127.0.0.1', retryStrategy: () => 100, lazyConnect: !job.waitReady });
  redis.on('error', () => {});
  if (job.waitReady) await new Promise((resolve) => redis.once('ready', resolve));
  else redis.connect().catch(() => {});
  close = () => redis.disconnect();
}

const rateLimiter = createRedisRateLimiter({ redis, logger, ...job.limiter });
const clients = new Map();
const sends = [];
const clientOf = (apiKey) => {
  if (!clients.has(apiKey)) {
    // maxRetries 0: a 429 surfaces as an error instead of being hidden by a retry.
    // Each send is timed on CLOCK_MONOTONIC (process.hrtime), which all processes of this machine share.
    const timedFetch = (input, init) => {
      sends.push([apiKey, Number(process.hrtime.bigint()) / 1e6]);
      return fetch(input, init);
    };
    clients.set(
      apiKey,
      new ServiceClient({ apiKey, baseUrl: job.url, maxRetries: 0, timeout: 20_000, rateLimiter, fetch: timedFetch }),
    );
  }
  return clients.get(apiKey);
};
const model = buildEwayBillModel();
process.send({ type: 'ready' });
await new Promise((resolve) => process.once('message', resolve));
const results = await Promise.allSettled(
  job.calls.map(([apiKey, document]) =>
    clientOf(apiKey).createEwayBill(document, model, { signal: AbortSignal.timeout(120_000) }),
  ),
);
const codes = {};
for (const r of results) {
  const code = r.status === 'fulfilled' ? 'ok' : (r.reason?.code ?? r.reason?.name ?? 'unknown');
  codes[code] = (codes[code] ?? 0) + 1;
}
process.send({ type: 'done', codes, warnings: warnings.length, sends });
close();
process.disconnect();
