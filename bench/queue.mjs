// bench:queue — issue 30's figures: priorities, maxQueueWait and queueStatus() against a node:http service in its own
// process (arrivals stamped there on CLOCK_MONOTONIC), in one process and across 3 processes on one redis-server.
// Run: npm run bench:queue   (builds first; starts its own server and redis-server; prints figures; not a test)
// BENCH_QUICK=1 runs smaller queues.
import { fork, spawnSync } from 'node:child_process';
import { once, setMaxListeners } from 'node:events';
import { createRequire } from 'node:module';
import { createProcessRateLimiter, ServiceClient } from '../dist/index.js';
import { freePort, startRedis } from './lib/ports.mjs';

const Redis = createRequire(import.meta.url)('ioredis5');
const QUICK = process.env.BENCH_QUICK === '1';
const now = () => Number(process.hrtime.bigint()) / 1e6;
const ms = (x) => `${Math.round(x)} ms`;
const key = (name) => `isk_bench_${name}_${process.pid}_${'x'.repeat(24)}`;

async function startService() {
  const child = fork(new URL('./queue-server.mjs', import.meta.url));
  const [ready] = await once(child, 'message');
  const report = async () => {
    child.send({ type: 'report' });
    const [message] = await once(child, 'message');
    return message.arrivals;
  };
  const stop = async () => {
    child.send({ type: 'stop' });
    await once(child, 'exit');
  };
  return { baseUrl: `http://127.0.0.1:${ready.port}`, report, stop };
}

const arrivalOf = (arrivals, path) => arrivals.find(([url]) => url === path)?.[1];
const minGap = (times) => {
  const sorted = [...times].sort((a, b) => a - b);
  return Math.min(...sorted.slice(1).map((t, i) => t - sorted[i]));
};

/** 200 low calls on one key, then one high: when the high arrives, and whether the lows arrive in their order. */
async function highBehindLows(service) {
  const lows = QUICK ? 20 : 200;
  const client = new ServiceClient({ apiKey: key('one'), baseUrl: service.baseUrl, maxRetries: 0 });
  const stop = new AbortController();
  setMaxListeners(0, stop.signal); // one signal for 200 waiting calls
  const calls = Array.from({ length: lows }, (_, i) =>
    client.request('GET', `/one/low/${i}`, { priority: 'low', signal: stop.signal }),
  );
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const madeAt = now();
  await client.request('GET', '/one/high', { priority: 'high' });
  const highAt = arrivalOf(await service.report(), '/one/high');
  // The lows take `lows` seconds; the first 5 after the high show the order holds (the rest follow at 1 s each).
  const rest = QUICK ? calls : calls.slice(0, 8);
  await Promise.all(rest);
  const arrivals = (await service.report()).filter(([url]) => url.startsWith('/one/low/'));
  const order = arrivals.map(([url]) => Number(url.split('/').pop()));
  const inOrder = order.every((n, i) => i === 0 || n > order[i - 1]);
  console.log(
    `one process, ${lows} low then 1 high: the high arrived ${ms(highAt - madeAt)} after it was made; ` +
      `lows in their order: ${inOrder} (${order.length} seen); min gap between arrivals ${ms(minGap([highAt, ...arrivals.map(([, t]) => t)]))}`,
  );
  stop.abort();
  await Promise.allSettled(calls);
}

/** maxQueueWait 2000 with 10 calls ahead: how soon it rejects, and that the service never saw it. */
async function deadline(service) {
  const client = new ServiceClient({ apiKey: key('deadline'), baseUrl: service.baseUrl, maxRetries: 0 });
  const ahead = Array.from({ length: 10 }, (_, i) => client.request('GET', `/deadline/ahead/${i}`));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const madeAt = now();
  const error = await client.request('GET', '/deadline/hurried', { maxQueueWait: 2000 }).catch((e) => e);
  const rejectedAfter = now() - madeAt;
  await Promise.all(ahead);
  const seen = arrivalOf(await service.report(), '/deadline/hurried') !== undefined;
  console.log(
    `maxQueueWait 2000 with 10 ahead: rejected after ${rejectedAfter.toFixed(1)} ms with ${error?.code}, ` +
      `mayHaveSucceeded ${error?.mayHaveSucceeded}; the service saw it: ${seen}`,
  );
}

/** A steady stream of high calls (one made for every grant) and one waiting low: how many slots the low waited. */
async function starvation(service) {
  // interval 100 ms (a partner's limiter of the SDK) so the stream's 30 slots take 3 s, not 30.
  const rateLimiter = createProcessRateLimiter({ interval: 100 });
  const client = new ServiceClient({ apiKey: key('stream'), baseUrl: service.baseUrl, maxRetries: 0, rateLimiter });
  const stream = [client.request('GET', '/stream/high/first', { priority: 'high' })];
  const low = client.request('GET', '/stream/low', { priority: 'low' });
  for (let i = 0; i < 30; i++) {
    stream.push(client.request('GET', `/stream/high/${i}`, { priority: 'high' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await Promise.all([low, ...stream]);
  const arrivals = (await service.report()).filter(([url]) => url.startsWith('/stream/'));
  const slot = arrivals.findIndex(([url]) => url === '/stream/low');
  console.log(
    `steady high stream vs one waiting low: the low started in slot ${slot + 1} (the first slot was taken at once)`,
  );
}

/** queueStatus() estimates vs the actual starts, for calls made behind 5, 10 and 20 queued ones. */
async function estimates(service) {
  const rateLimiter = createProcessRateLimiter({ interval: 200 });
  const rows = [];
  for (const ahead of QUICK ? [5] : [5, 10, 20]) {
    const client = new ServiceClient({
      apiKey: key(`est${ahead}`),
      baseUrl: service.baseUrl,
      maxRetries: 0,
      rateLimiter,
    });
    const queued = Array.from({ length: ahead }, (_, i) =>
      client.request('GET', `/est${ahead}/q/${i}`, { priority: i % 2 ? 'low' : 'normal' }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const status = await client.queueStatus();
    const t0 = Date.now();
    const h0 = now();
    await client.request('GET', `/est${ahead}/probe`, { priority: 'normal' });
    const arrived = arrivalOf(await service.report(), `/est${ahead}/probe`);
    const actualWait = arrived - h0;
    const estimatedWait = status.estimatedStartAt.normal - t0;
    rows.push(
      `${ahead} ahead: estimated ${ms(estimatedWait)}, actual ${ms(actualWait)} (${((100 * (actualWait - estimatedWait)) / actualWait).toFixed(1)} %)`,
    );
    await Promise.all(queued);
  }
  console.log(`queueStatus() estimate vs actual start (interval 200 ms): ${rows.join('; ')}`);
}

/** 3 processes on one redis-server: A queues 50 low, C 20 low, then B makes one high call. */
async function acrossProcesses(service) {
  if (spawnSync('redis-server', ['--version']).error) {
    console.log('across processes: skipped (no redis-server on the PATH)');
    return;
  }
  const redisPort = await freePort();
  const redis = await startRedis(redisPort);
  const apiKey = key('procs');
  const workers = ['A', 'B', 'C'].map(() =>
    fork(new URL('./queue-worker.mjs', import.meta.url), {
      env: { ...process.env, JOB: JSON.stringify({ redisPort, apiKey, baseUrl: service.baseUrl }) },
    }),
  );
  await Promise.all(workers.map((w) => once(w, 'message')));
  const [a, b, c] = workers;
  a.send({ type: 'go', name: 'A', count: QUICK ? 10 : 50, priority: 'low' });
  c.send({ type: 'go', name: 'C', count: QUICK ? 5 : 20, priority: 'low' });
  await new Promise((resolve) => setTimeout(resolve, 2500));
  b.send({ type: 'status' });
  const [{ status }] = await once(b, 'message');
  const madeAt = now();
  b.send({ type: 'go', name: 'B', count: 1, priority: 'high' });
  await once(b, 'message');
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const arrivals = (await service.report()).filter(([url]) => /^\/[ABC]\//.test(url));
  const highAt = arrivalOf(arrivals, '/B/0');
  console.log(
    `3 processes on redis-server (A 50 low, C 20 low, then B 1 high): B's queueStatus() saw ${JSON.stringify(status.waiting)}; ` +
      `the high arrived ${ms(highAt - madeAt)} after it was made; min gap between the key's ${arrivals.length} arrivals ${ms(minGap(arrivals.map(([, t]) => t)))}`,
  );
  // Redis's own count and time of the script's runs (INFO commandstats), per request that arrived.
  const admin = new Redis({ port: redisPort, host: '127.0.0.1' });
  const stats = await admin.call('INFO', 'commandstats');
  admin.disconnect();
  const runs = [...stats.matchAll(/cmdstat_(evalsha|eval):calls=(\d+),usec=\d+,usec_per_call=([\d.]+)/g)];
  const total = runs.reduce((sum, m) => sum + Number(m[2]), 0);
  console.log(
    `  Redis script runs: ${total} for ${arrivals.length} requests sent (${(total / arrivals.length).toFixed(1)} per request, ` +
      `with every waiter's asks and the status calls); ${runs.map((m) => `${m[1]} ${m[3]} µs per run`).join(', ')}`,
  );
  for (const w of workers) w.kill();
  redis.kill('SIGTERM');
  await once(redis, 'exit');
}

const service = await startService();
const only = process.argv.slice(2);
const scenarios = { highBehindLows, deadline, starvation, estimates, acrossProcesses };
for (const [name, run] of Object.entries(scenarios)) if (only.length === 0 || only.includes(name)) await run(service);
await service.stop();
