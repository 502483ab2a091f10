// One of the Node processes of bench/redis-scale.mjs: its own ioredis connection (a Redis, or a Cluster of the given
// masters), one createRedisRateLimiter, and one loop per key, each taking its turn and sending to the stand-in
// service, until the deadline the driver gives with 'go'. Every process sends for every key.
//
// The limiter's own cost per call is measured without touching the limiter: its Redis client is wrapped, and each
// script call made inside an acquire() (found through AsyncLocalStorage) adds the wait Redis told it to sleep. The
// time in acquire() minus those waits is what the limiter added: round trips, timer slack, event-loop delay.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { createRedisRateLimiter } from '../dist/redis.js';

const require = createRequire(import.meta.url);
const Redis = require('ioredis5');
const job = JSON.parse(process.env.JOB);
const hr = () => Number(process.hrtime.bigint()) / 1e6;

const options = { retryStrategy: () => 100, maxRetriesPerRequest: 2, enableAutoPipelining: job.autoPipelining };
const redis =
  job.topology === 'cluster'
    ? new Redis.Cluster(
        job.ports.map((port) => ({ host: '127.0.0.1', port })),
        { redisOptions: options, enableAutoPipelining: job.autoPipelining, scaleReads: 'master' },
      )
    : new Redis({ host: '127.0.0.1', port: job.ports[0], ...options });
redis.on('error', () => {});
await new Promise((resolve) => redis.once('ready', resolve));

const context = new AsyncLocalStorage();
const ops = {};
const roundTrips = [];
// evalsha(sha, 1, key, op, ticket, ...) and eval(script, 1, key, op, ticket, ...): the reply is [granted, µs].
const timed =
  (method) =>
  (scriptOrSha, numKeys, key, op, ...rest) => {
    ops[op] = (ops[op] ?? 0) + 1;
    const store = context.getStore();
    const started = performance.now();
    if (store && store.first === undefined) store.first = started;
    return redis[method](scriptOrSha, numKeys, key, op, ...rest).then((reply) => {
      const trip = performance.now() - started;
      if (measuring) roundTrips.push(trip);
      if (store) store.trips += trip;
      if (store && (op === 'acquire' || op === 'start') && Array.isArray(reply)) store.waits += Number(reply[1]) / 1000;
      return reply;
    });
  };
const client = { evalsha: timed('evalsha'), eval: timed('eval'), call: (...args) => redis.call(...args) };
const warnings = [];
const logger = { warn: (message) => warnings.push(message), debug: () => {} };
const limiter = createRedisRateLimiter({ redis: client, logger, ...job.limiter });

const agent = new Agent({ keepAlive: true, maxSockets: job.sockets });
const body = JSON.stringify({ docNo: 'BENCH-1', docDate: '01/01/2026' });
const send = (k) =>
  new Promise((resolve, reject) => {
    const req = request(
      `${job.url}/k/${k}`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });

let measuring = false;
const added = [];
const inAcquire = [];
const tripsPerAcquire = [];
const codes = {};
let grants = 0;
const sends = [];
let late = 0;

async function loop(k, stop, deadline) {
  const keyId = `bench-key-${k}`;
  while (hr() < deadline) {
    const ctx = { waits: 0, trips: 0, first: undefined };
    const t0 = performance.now();
    let release;
    try {
      release = await context.run(ctx, () => limiter.acquire(keyId, stop));
    } catch (error) {
      if (stop.aborted) return;
      codes[error?.name ?? 'error'] = (codes[error?.name ?? 'error'] ?? 0) + 1;
      continue;
    }
    const granted = performance.now();
    // From the first Redis call: the wait before it is this process's own spacing of the key (the in-process limiter).
    const elapsed = granted - (ctx.first ?? t0);
    if (hr() >= deadline) {
      release?.();
      return;
    }
    grants++;
    if (measuring) {
      inAcquire.push(granted - t0);
      added.push(elapsed - ctx.waits);
      tripsPerAcquire.push(ctx.trips);
    }
    if (elapsed - ctx.waits > 25) late++;
    release?.sent?.();
    sends.push(k, hr());
    try {
      const status = await send(k);
      codes[status] = (codes[status] ?? 0) + 1;
      release?.({ status });
    } catch (error) {
      codes[error.code ?? 'send-error'] = (codes[error.code ?? 'send-error'] ?? 0) + 1;
      release?.(error);
    }
  }
}

// A deployment that has run for a while has the script loaded on every node: 30 keys of its own (in random slots)
// load it where it is missing. COLD=1 skips this, and the first calls find it missing.
if (!job.cold) {
  for (let i = 0; i < 30; i++) (await limiter.acquire(`warm-up-${process.pid}-${i}`))?.();
}
process.send({ type: 'ready' });
const go = await new Promise((resolve) => process.once('message', resolve));
const stop = new AbortController();
let cpu0;
let cpuMs = 0;
setTimeout(
  () => {
    measuring = true;
    cpu0 = process.cpuUsage();
  },
  Math.max(0, go.from - hr()),
);
const until = setTimeout(
  () => {
    measuring = false;
    const cpu = process.cpuUsage(cpu0);
    cpuMs = (cpu.user + cpu.system) / 1000;
  },
  Math.max(0, go.to - hr()),
);
setTimeout(() => stop.abort(new Error('bench over')), Math.max(0, go.deadline - hr()));
// The keys start spread over the ramp (go.ramp ms), as a fleet's traffic does, rather than 1000 acquires at one instant.
const started = (k) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, go.start + (k / job.keys) * go.ramp - hr())));
await Promise.all(Array.from({ length: job.keys }, (_, k) => started(k).then(() => loop(k, stop.signal, go.deadline))));
clearTimeout(until);
const report = {
  type: 'done',
  codes,
  grants,
  sends,
  late,
  ops,
  warnings: warnings.length,
  firstWarning: warnings[0],
  added,
  inAcquire,
  roundTrips,
  tripsPerAcquire,
  cpuMs,
};
// Disconnects once the report is written to the channel.
process.send(report, () => {
  agent.destroy();
  redis.disconnect();
  process.disconnect();
});
