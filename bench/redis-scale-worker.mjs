// One of the Node processes of bench/redis-scale.mjs: its own ioredis connection (a Redis, or a Cluster of the given
// masters), one createRedisRateLimiter, and one loop per key, each taking its turn and sending to the stand-in
// service, until the deadline the driver gives with 'go'. Every process sends for every key.
//
// The limiter's own cost per call is measured without touching the limiter: its Redis client is wrapped, and each
// script call made inside an acquire() (found through AsyncLocalStorage) adds the wait Redis told it to sleep. The
// time in acquire() minus those waits is what the limiter added: round trips, timer slack, event-loop delay. The start
// Redis decided (a grant's reply time + its wait, or a confirmation's reply time) is kept too: the time from it to
// the send is what the hand-over added.
//
// With job.mix (the priority scenarios): the loops are a batch ('low'), and the process also makes interactive calls
// for the keys it owns (k % PROCS = its index), one per key every mix.every ms from the window's start, in turn a
// 'high' call, a 'normal' call with maxQueueWait and a 'low' call with maxQueueWait; each is reported (made, sent or
// rejected, on CLOCK_MONOTONIC).
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
      if (store && (op === 'acquire' || op === 'start') && Array.isArray(reply)) {
        // [2, µs] (past the caller's deadline) carries the expected start, not a wait.
        if (Number(reply[0]) !== 2) store.waits += Number(reply[1]) / 1000;
        if (Number(reply[0]) === 1) store.decided = performance.now() + Number(reply[1]) / 1000;
      }
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
const handOver = [];
/** Time in acquire() per kind of call ('loop', or an interactive kind), in the window. */
const waitsBy = {};
const interactive = [];
const codes = {};
let grants = 0;
const sends = [];
let late = 0;

/**
 * One turn of key `k`: acquire (with `options`), `sent()`, the POST, the release. Resolves with the moment the request
 * was handed to node:http (CLOCK_MONOTONIC), or `undefined` when the bench ended first; rejects when acquire does.
 */
async function turn(k, stop, deadline, options, kind = 'loop') {
  const ctx = { waits: 0, trips: 0, first: undefined, decided: undefined };
  const t0 = performance.now();
  const release = await context.run(ctx, () => limiter.acquire(`bench-key-${k}`, stop, options));
  const granted = performance.now();
  // From the first Redis call: the wait before it is this process's own spacing of the key (the in-process limiter).
  const elapsed = granted - (ctx.first ?? t0);
  if (hr() >= deadline) {
    release?.();
    return undefined;
  }
  grants++;
  if (measuring) {
    inAcquire.push(granted - t0);
    waitsBy[kind] ??= [];
    waitsBy[kind].push(granted - t0);
    added.push(elapsed - ctx.waits);
    tripsPerAcquire.push(ctx.trips);
    if (ctx.decided !== undefined) handOver.push(performance.now() - ctx.decided);
  }
  if (elapsed - ctx.waits > 25) late++;
  release?.sent?.();
  const at = hr();
  sends.push(k, at);
  try {
    const status = await send(k);
    codes[status] = (codes[status] ?? 0) + 1;
    release?.({ status });
  } catch (error) {
    codes[error.code ?? 'send-error'] = (codes[error.code ?? 'send-error'] ?? 0) + 1;
    release?.(error);
  }
  return at;
}

async function loop(k, stop, deadline) {
  const options = job.mix ? { priority: 'low' } : undefined;
  while (hr() < deadline) {
    try {
      await turn(k, stop, deadline, options);
    } catch (error) {
      if (stop.aborted) return;
      codes[error?.name ?? 'error'] = (codes[error?.name ?? 'error'] ?? 0) + 1;
    }
  }
}

const KINDS = ['high', 'normal-deadline', 'low-deadline'];

/**
 * Key `k`'s interactive calls, one every mix.every ms from the window's start until maxQueueWait before its end (so
 * each can end before the bench does), each awaited before the next is made.
 */
async function interactiveCalls(k, stop, go) {
  const { every, maxQueueWait } = job.mix;
  const last = go.to - maxQueueWait;
  // Spread over the first period, so the keys' calls do not come at one instant.
  for (let round = 0, at = go.from + (k / job.keys) * every; at < last; round++, at += every) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - hr())));
    const kind = KINDS[(round + k) % KINDS.length];
    const priority = kind.split('-')[0];
    const options = kind === 'high' ? { priority } : { priority, maxQueueWait, deadline: Date.now() + maxQueueWait };
    const made = hr();
    try {
      const sent = await turn(k, stop, go.deadline, options, kind);
      interactive.push(sent === undefined ? { k, kind, made, unfinished: true } : { k, kind, made, sent });
    } catch (error) {
      if (stop.aborted) {
        interactive.push({ k, kind, made, unfinished: true });
        return;
      }
      interactive.push({ k, kind, made, rejected: hr(), code: error?.code ?? error?.name });
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
const mine = job.mix ? Array.from({ length: job.keys }, (_, k) => k).filter((k) => k % job.procs === job.index) : [];
await Promise.all([
  ...Array.from({ length: job.keys }, (_, k) => started(k).then(() => loop(k, stop.signal, go.deadline))),
  ...mine.map((k) => interactiveCalls(k, stop.signal, go)),
]);
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
  handOver,
  waitsBy,
  interactive,
  cpuMs,
};
// Disconnects once the report is written to the channel.
process.send(report, () => {
  agent.destroy();
  redis.disconnect();
  process.disconnect();
});
