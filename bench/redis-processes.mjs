// bench:redis — the Redis rate limiter across 4 Node processes, against the mock service in its own process.
// Each process has its own Redis connection and limiter, as separate pods would. The mock service counts, at its end,
// every arrival of each key and every 429; the script calls come from Redis's own INFO commandstats.
// Run: npm run bench:redis   (builds first; starts its own redis-server; prints figures; not part of npm test)
import { fork, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { freePort, startRedis } from './lib/ports.mjs';

const require = createRequire(import.meta.url);
const Redis = require('ioredis5');
const PROCS = 4;

if (spawnSync('redis-server', ['--version']).error) {
  console.error('bench:redis needs redis-server on the PATH (Debian/Ubuntu: apt-get install -y redis-server)');
  process.exit(1);
}

async function stopRedis(child) {
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

async function startHung() {
  const sockets = new Set();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: server.address().port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

const gapsOf = (times) => times.slice(1).map((t, i) => t - times[i]);
const ms = (x) => `${x.toFixed(1)} ms`;

async function scenario({ title, keys, perProcess, library = 'ioredis', limiter = {}, redisPort, admin, during }) {
  const calls = perProcess * PROCS;
  const service = fork(new URL('./redis-service.mjs', import.meta.url), {
    env: { ...process.env, KEYS: String(keys), CALLS: String(calls) },
  });
  const [ready] = await once(service, 'message');
  const workers = Array.from({ length: PROCS }, (_, p) => {
    const share = ready.keys.flatMap((apiKey, k) =>
      Array.from({ length: perProcess }, (_, i) => [apiKey, ready.documents[k * calls + p * perProcess + i]]),
    );
    const { hung, ...limiterOptions } = limiter;
    const job = { url: ready.url, redisPort, library, limiter: limiterOptions, calls: share, waitReady: !hung };
    return fork(new URL('./redis-worker.mjs', import.meta.url), { env: { ...process.env, JOB: JSON.stringify(job) } });
  });
  await Promise.all(workers.map((worker) => once(worker, 'message')));
  await admin?.call('CONFIG', 'RESETSTAT');
  const t0 = performance.now();
  const done = workers.map((worker) => once(worker, 'message'));
  for (const worker of workers) worker.send('go');
  const fault = during?.();
  const reports = (await Promise.all(done)).map(([message]) => message);
  const wall = performance.now() - t0;
  await fault;
  service.send({ type: 'report' });
  const [report] = await once(service, 'message');

  const codes = {};
  for (const r of reports) for (const [code, n] of Object.entries(r.codes)) codes[code] = (codes[code] ?? 0) + n;
  const gaps = report.arrivals.flatMap(gapsOf).sort((a, b) => a - b);
  const sent = report.documents.length;
  const duplicates = sent - new Set(report.documents).size;
  const ideal = (calls - 1) * 1000;
  console.log(`\n${title} (load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores)`);
  console.log(
    `  ${keys} key(s) x ${calls} calls (${PROCS} processes x ${perProcess}), ${library}, ${JSON.stringify(limiter)}`,
  );
  console.log(`  settled ${Object.values(codes).reduce((a, b) => a + b, 0)}/${keys * calls}: ${JSON.stringify(codes)}`);
  console.log(
    `  at the service: ${sent} arrivals, ${duplicates} documents sent twice, statuses ${JSON.stringify(report.statuses)}`,
  );
  const sendsByKey = new Map();
  for (const r of reports)
    for (const [apiKey, at] of r.sends) sendsByKey.set(apiKey, [...(sendsByKey.get(apiKey) ?? []), at]);
  const sendGaps = [...sendsByKey.values()]
    .flatMap((times) => gapsOf(times.sort((a, b) => a - b)))
    .sort((a, b) => a - b);
  if (sendGaps.length > 0) {
    const below = sendGaps.filter((g) => g < 1000).length;
    console.log(
      `  send gaps per key (fetch called, all processes): min ${ms(sendGaps[0])}, p50 ${ms(sendGaps[Math.floor(sendGaps.length / 2)])}; ${below} below 1000 ms`,
    );
  }
  if (gaps.length > 0) {
    const below = gaps.filter((g) => g < 1000).length;
    console.log(
      `  arrival gaps per key at the service: min ${ms(gaps[0])}, p50 ${ms(gaps[Math.floor(gaps.length / 2)])}, max ${ms(gaps.at(-1))}; ${below} below 1000 ms`,
    );
  }
  console.log(
    `  wall ${(wall / 1000).toFixed(2)} s; ideal ${(ideal / 1000).toFixed(0)} s (+${((wall / ideal - 1) * 100).toFixed(1)}%)`,
  );
  const warned = reports.reduce((sum, r) => sum + r.warnings, 0);
  if (warned) console.log(`  logger.warn calls: ${warned} (${PROCS} processes)`);
  if (admin) {
    const stats = await admin.call('INFO', 'commandstats');
    const scriptCalls = [...stats.matchAll(/cmdstat_(evalsha|eval):calls=(\d+)/g)];
    const total = scriptCalls.reduce((sum, m) => sum + Number(m[2]), 0);
    const detail = scriptCalls.map((m) => `${m[1]} ${m[2]}`).join(', ');
    console.log(
      `  Redis script calls: ${total} (${detail}) = ${(total / (codes.ok ?? 1)).toFixed(2)} per granted request`,
    );
  }
}

const port = await freePort();
let redis = await startRedis(port);
const admin = new Redis({ port, host: '127.0.0.1', retryStrategy: () => 100 });
admin.on('error', () => {});
const only = process.env.ONLY;
const run = (name, options) => (!only || only.split(',').includes(name) ? scenario(options) : undefined);
console.log(
  `bench:redis on Node ${process.versions.node}, ${(await admin.call('INFO', 'server')).match(/redis_version:(\S+)/)[1]} redis-server`,
);
try {
  await run('one-key', {
    title: 'One key shared by 4 processes, waitForAnswer: true',
    keys: 1,
    perProcess: 10,
    limiter: { waitForAnswer: true },
    redisPort: port,
    admin,
  });
  await run('one-key-node-redis', {
    title: 'The same with node-redis 5',
    keys: 1,
    perProcess: 10,
    library: 'node-redis',
    limiter: { waitForAnswer: true },
    redisPort: port,
    admin,
  });
  await run('one-key-starts', {
    title: 'One key, starts only (waitForAnswer: false, the default)',
    keys: 1,
    perProcess: 10,
    limiter: { waitForAnswer: false },
    redisPort: port,
    admin,
  });
  await run('many-keys', {
    title: '50 keys shared by 4 processes, waitForAnswer: true',
    keys: 50,
    perProcess: 2,
    limiter: { waitForAnswer: true },
    redisPort: port,
    admin,
  });
  const hung = await startHung();
  try {
    await run('hung-local', {
      title: "Fault: Redis hangs (accepts, never answers), onUnavailable: 'local'",
      keys: 1,
      perProcess: 3,
      limiter: { timeout: 500, waitForAnswer: true, hung: true },
      redisPort: hung.port,
    });
    await run('hung-fail', {
      title: "Fault: Redis hangs, onUnavailable: 'fail'",
      keys: 1,
      perProcess: 3,
      limiter: { timeout: 500, waitForAnswer: true, onUnavailable: 'fail', hung: true },
      redisPort: hung.port,
    });
  } finally {
    hung.close();
  }
  await run('restart', {
    title: 'Fault: Redis stopped at 3 s and started again at 5 s (empty)',
    keys: 1,
    perProcess: 10,
    limiter: { timeout: 300, recheckAfter: 1000, waitForAnswer: true },
    redisPort: port,
    admin,
    during: async () => {
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await stopRedis(redis);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      redis = await startRedis(port);
    },
  });
} finally {
  admin.disconnect();
  await stopRedis(redis);
}
