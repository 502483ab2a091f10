// Measure 3: BENCH_KEYS keys × 3 calls with a stub fetch, the SDK against bare p-throttle per key, each in a fresh
// process: wall time, peak RSS, JS heap allocated per call and time in GC, heap after GC, and heap after BENCH_IDLE_MS
// idle (no further call) then GC; and (bench/workers/keys-held.mjs) the heap each call retains while in flight.
// p-throttle runs first; the SDK starts when p-throttle's calls are done, so their idle waits overlap. Then the three
// again (no idle wait) with FETCH=request: a stub that builds its Request as a real fetch does; then the three with
// Node's own fetch against a loopback server (BENCH_KEYS_LOOPBACK keys, 3,000 by default). First of all, the goal of
// issue 29 (item 8): the SDK against p-throttle + ky in alternated pairs (`againstKy`).
import { envNumber, fixed, KiB, MiB, row, runWorker, spread, startWorker, summary } from './common.mjs';

export const title = 'many keys × 3 calls, stub fetch: SDK vs bare p-throttle per key';

/** The goals of issue 29, item 8 (second goal): the SDK against p-throttle + ky, side by side in the same rounds. */
const WALL_GOAL = 1.2;
const RSS_GOAL = 1.1;

/**
 * The SDK against p-throttle per key with the POST through ky, `rounds` pairs of fresh processes with the stub that
 * builds its Request (FETCH=request). Each pair runs one after the other, the order alternated from one round to the
 * next (a process started second on a busy machine tends to be the slower), and the verdict is the median of the pairs'
 * ratios: one round's wall or peak RSS swings by a third with when V8 collects, so no single pair decides. Time in GC
 * is shown for both, since it is most of the difference and most of the noise.
 */
async function againstKy(KEYS, rounds) {
  const runs = { ky: [], sdk: [] };
  for (let round = 0; round < rounds; round++) {
    for (const mode of round % 2 === 0 ? ['ky', 'sdk'] : ['sdk', 'ky']) {
      const worker = startWorker('keys.mjs', { env: { KEYS, CALLS: 3, MODE: mode, FETCH: 'request', IDLE_MS: 0 } });
      runs[mode].push(await worker.next());
      await worker.next();
      await worker.done();
    }
  }
  const pairs = (field) => summary(runs.sdk.map((work, round) => work[field] / runs.ky[round][field]));
  const of = (mode, field) => summary(runs[mode].map((work) => work[field]));
  const times = (s) => spread(s, fixed(2), '×');
  const mibs = (s) => spread(s, (b) => MiB(b).toFixed(0), ' MiB');
  const seconds = (s) => spread(s, (ms) => (ms / 1000).toFixed(2), ' s');
  const gcShare = (mode) => summary(runs[mode].map((work) => (100 * work.gcMs) / work.wallMs));
  const label = `${KEYS.toLocaleString('en-US')} keys × 3 calls, stub fetch that builds its Request, the SDK against p-throttle + ky (${rounds} rounds, order alternated, median of the pairs)`;
  // One row of the SDK against p-throttle + ky: the median of the pairs' ratios, both sides' figures, the goal if any.
  const versus = (title, field, format, goal) => {
    const ratio = pairs(field);
    return row(
      title,
      `${times(ratio)} p-throttle + ky`,
      `the SDK ${format(of('sdk', field))}; p-throttle + ky ${format(of('ky', field))}`,
      goal === undefined ? undefined : `≤ ${goal}× p-throttle + ky`,
      goal === undefined ? undefined : ratio.median <= goal,
    );
  };
  return [
    versus(`${label}: wall time`, 'wallMs', seconds, WALL_GOAL),
    versus(
      '  … CPU time of the process (all its threads; less at the mercy of other processes than wall time)',
      'cpuMs',
      seconds,
    ),
    versus('  … peak RSS', 'peakRss', mibs, RSS_GOAL),
    row(
      '  … JS heap allocated per call, and the share of wall time in GC (the noise of both rows above)',
      `${spread(of('sdk', 'allocatedPerCall'), (b) => KiB(b).toFixed(1), ' KiB')} = ${times(pairs('allocatedPerCall'))} p-throttle + ky; GC ${spread(gcShare('sdk'), fixed(0), ' %')} of wall`,
      `p-throttle + ky ${spread(of('ky', 'allocatedPerCall'), (b) => KiB(b).toFixed(1), ' KiB')}; GC ${spread(gcShare('ky'), fixed(0), ' %')} of wall`,
      undefined,
    ),
    row(
      '  … the JS heap at its peak: used when a GC started (live and garbage), and reserved (what the RSS follows)',
      `${mibs(of('sdk', 'peakUsed'))} used = ${times(pairs('peakUsed'))}; ${mibs(of('sdk', 'peakTotal'))} reserved = ${times(pairs('peakTotal'))} p-throttle + ky`,
      `p-throttle + ky ${mibs(of('ky', 'peakUsed'))} used, ${mibs(of('ky', 'peakTotal'))} reserved`,
      undefined,
    ),
  ];
}

export async function run() {
  const KEYS = envNumber('BENCH_KEYS', 10_000, 1000);
  const IDLE_MS = envNumber('BENCH_IDLE_MS', 35_000, 3000);
  const env = { KEYS, CALLS: 3, IDLE_MS };
  // The goal's rows first; BENCH_KEYS_PART=ky runs only them (`BENCH_KEYS_PART=ky npm run bench -- keys`).
  const kyRows = await againstKy(KEYS, envNumber('BENCH_KEYS_KY_ROUNDS', 5, 3));
  if (process.env.BENCH_KEYS_PART === 'ky') return kyRows;
  const bare = startWorker('keys.mjs', { env: { ...env, MODE: 'pthrottle' } });
  const bareWork = await bare.next();
  // The reference of what ky itself costs here: p-throttle per key with the POST through ky (no idle wait needed).
  const viaKy = startWorker('keys.mjs', { env: { ...env, MODE: 'ky', IDLE_MS: 0 } });
  const kyWork = await viaKy.next();
  await viaKy.next();
  await viaKy.done();
  const sdk = startWorker('keys.mjs', { env: { ...env, MODE: 'sdk' } });
  const sdkWork = await sdk.next();
  // While both idle: what a call in flight holds, each in a fresh process (answers held until every key's first call
  // is in fetch, the other calls queued for their key's slot).
  const heldEnv = { ...env, KEYS: envNumber('BENCH_KEYS_HELD', 3000, 1000) };
  const bareHeld = await runWorker('keys-held.mjs', { env: { ...heldEnv, MODE: 'pthrottle' } });
  const sdkHeld = await runWorker('keys-held.mjs', { env: { ...heldEnv, MODE: 'sdk' } });
  const [bareIdle, sdkIdle] = await Promise.all([bare.next(), sdk.next()]);
  await Promise.all([bare.done(), sdk.done()]);
  // The same three, with a stub that builds the Request a real fetch builds from its arguments (fixture.mjs): the plain
  // stub lets a bare `fetch(url, init)` skip that work, which no runtime's fetch does.
  // Their RSS swings by a third from one process to the next (when V8 collects decides it): rounds, each mode in turn,
  // and the median of each round's ratio.
  const rounds = envNumber('BENCH_KEYS_ROUNDS', 3, 1);
  const real = { pthrottle: [], ky: [], sdk: [] };
  for (let round = 0; round < rounds; round++) {
    for (const mode of ['pthrottle', 'ky', 'sdk']) {
      const worker = startWorker('keys.mjs', { env: { ...env, MODE: mode, FETCH: 'request', IDLE_MS: 0 } });
      real[mode].push(await worker.next());
      await worker.next();
      await worker.done();
    }
  }
  // And through the runtime's own fetch against a loopback server in its own process (bench/workers/server.mjs):
  // fewer keys by default, since Node's fetch opens a socket per request in flight (10,000 keys × 3 calls run the
  // process out of file descriptors, see the README's "Rate limit"); a fresh server per run.
  const loopKeys = envNumber('BENCH_KEYS_LOOPBACK', 3000, 500);
  const loop = { pthrottle: [], ky: [], sdk: [] };
  for (let round = 0; round < rounds; round++) {
    for (const mode of ['pthrottle', 'ky', 'sdk']) {
      const server = startWorker('server.mjs', { execArgv: [] });
      try {
        const { port } = await server.next();
        const baseUrl = `http://127.0.0.1:${port}/api/partner`;
        const worker = startWorker('keys.mjs', {
          env: { ...env, KEYS: loopKeys, MODE: mode, BASE_URL: baseUrl, IDLE_MS: 0 },
        });
        loop[mode].push(await worker.next());
        await worker.next();
        await worker.done();
      } finally {
        server.child.kill();
      }
    }
  }
  const of = (mode, field, runs = real) => summary(runs[mode].map((work) => work[field]));
  const ratio = (mode, field, over = 'pthrottle', runs = real) =>
    summary(runs[mode].map((work, round) => work[field] / runs[over][round][field]));
  const seconds = (s) => spread(s, (ms) => (ms / 1000).toFixed(2), ' s');
  const mibs = (s) => spread(s, (bytes) => MiB(bytes).toFixed(0), ' MiB');
  const times = (s) => spread(s, fixed(2), '×');

  const mib = (bytes) => `${MiB(bytes).toFixed(0)} MiB`;
  const delta = (bytes) => `${bytes >= 0 ? '+' : ''}${MiB(bytes).toFixed(1)} MiB`;
  const wallRatio = sdkWork.wallMs / bareWork.wallMs;
  const rssRatio = sdkWork.peakRss / bareWork.peakRss;
  const idleGrowth = sdkIdle.heapAfterIdle - sdkIdle.heapStart;
  // The goal is ± 10 MiB at 10,000 keys; fewer keys get a proportional share, with 2 MiB for the heap's own noise.
  const idleRoom = Math.max(2, (10 * KEYS) / 10_000);
  const label = `${KEYS.toLocaleString('en-US')} keys × 3 calls, stub fetch, one fresh process each`;
  const kib = (bytes) => `${KiB(bytes).toFixed(1)} KiB`;
  const gcShare = (work) => `${((100 * work.gcMs) / work.wallMs).toFixed(0)} % of wall in GC`;
  return [
    ...kyRows,
    row(
      `${label}: wall time`,
      `${(sdkWork.wallMs / 1000).toFixed(2)} s = ${fixed(2)(wallRatio)}× p-throttle`,
      `bare p-throttle per key ${(bareWork.wallMs / 1000).toFixed(2)} s; ideal 2 s`,
      '≤ 1.3× p-throttle',
      wallRatio <= 1.3,
    ),
    row(
      '  peak RSS',
      `${mib(sdkWork.peakRss)} = ${fixed(2)(rssRatio)}× p-throttle`,
      `p-throttle ${mib(bareWork.peakRss)}`,
      '≤ 1.5× p-throttle',
      rssRatio <= 1.5,
    ),
    row(
      '  p-throttle per key with the POST through ky (reference: what ky itself costs here)',
      `${(kyWork.wallMs / 1000).toFixed(2)} s = ${fixed(2)(kyWork.wallMs / bareWork.wallMs)}× p-throttle; ${mib(kyWork.peakRss)} = ${fixed(2)(kyWork.peakRss / bareWork.peakRss)}× p-throttle`,
      `the SDK: ${fixed(2)(sdkWork.wallMs / kyWork.wallMs)}× its wall time, ${fixed(2)(sdkWork.peakRss / kyWork.peakRss)}× its RSS`,
      undefined,
    ),
    row(
      '  JS heap allocated per call (GC profiler: growth + freed by each GC, over the calls)',
      `${kib(sdkWork.allocatedPerCall)} = ${fixed(2)(sdkWork.allocatedPerCall / bareWork.allocatedPerCall)}× p-throttle; ${gcShare(sdkWork)}`,
      `p-throttle ${kib(bareWork.allocatedPerCall)}, ${gcShare(bareWork)}; via ky ${kib(kyWork.allocatedPerCall)}, ${gcShare(kyWork)}`,
      undefined,
    ),
    row(
      `  retained per call in flight (${heldEnv.KEYS.toLocaleString('en-US')} keys × 3 calls, answers held: heap after GC over the start, ÷ calls)`,
      `${kib(sdkHeld.retainedPerCall)} = ${fixed(2)(sdkHeld.retainedPerCall / bareHeld.retainedPerCall)}× p-throttle`,
      `p-throttle ${kib(bareHeld.retainedPerCall)}`,
      undefined,
    ),
    row(
      '  heap after the calls, after GC, over the start',
      delta(sdkWork.heapAfterWork - sdkWork.heapStart),
      `p-throttle ${delta(bareWork.heapAfterWork - bareWork.heapStart)}`,
      undefined,
    ),
    row(
      `  heap after ${(IDLE_MS / 1000).toFixed(0)} s idle (no other call), after GC, over the start`,
      delta(idleGrowth),
      `p-throttle ${delta(bareIdle.heapAfterIdle - bareIdle.heapStart)}`,
      `start ± ${idleRoom.toFixed(0)} MiB`,
      Math.abs(idleGrowth) <= idleRoom * 1024 * 1024,
    ),
    row(
      `  with a stub fetch that builds its Request, as a real fetch does (${rounds} rounds): the SDK, wall time`,
      `${seconds(of('sdk', 'wallMs'))} = ${times(ratio('sdk', 'wallMs'))} p-throttle`,
      `p-throttle ${seconds(of('pthrottle', 'wallMs'))}; the SDK ${times(ratio('sdk', 'wallMs', 'ky'))} p-throttle + ky`,
      undefined,
    ),
    row(
      '  … the SDK, peak RSS',
      `${mibs(of('sdk', 'peakRss'))} = ${times(ratio('sdk', 'peakRss'))} p-throttle`,
      `p-throttle ${mibs(of('pthrottle', 'peakRss'))}; the SDK ${times(ratio('sdk', 'peakRss', 'ky'))} p-throttle + ky`,
      undefined,
    ),
    row(
      '  … p-throttle per key with the POST through ky (ky builds a Request, the fetch another from it)',
      `${seconds(of('ky', 'wallMs'))} = ${times(ratio('ky', 'wallMs'))}; ${mibs(of('ky', 'peakRss'))} = ${times(ratio('ky', 'peakRss'))} p-throttle`,
      'the budget of ≤ 1.3× and ≤ 1.5× is spent by ky alone here',
      undefined,
    ),
    row(
      `${loopKeys.toLocaleString('en-US')} keys × 3 calls, Node's fetch, loopback server (${rounds} rounds): the SDK, wall time`,
      `${seconds(of('sdk', 'wallMs', loop))} = ${times(ratio('sdk', 'wallMs', 'pthrottle', loop))} p-throttle`,
      `p-throttle + fetch ${seconds(of('pthrottle', 'wallMs', loop))}; p-throttle + ky ${times(ratio('ky', 'wallMs', 'pthrottle', loop))}`,
      undefined,
    ),
    row(
      '  … the SDK, peak RSS',
      `${mibs(of('sdk', 'peakRss', loop))} = ${times(ratio('sdk', 'peakRss', 'pthrottle', loop))} p-throttle`,
      `p-throttle + fetch ${mibs(of('pthrottle', 'peakRss', loop))}; p-throttle + ky ${times(ratio('ky', 'peakRss', 'pthrottle', loop))}`,
      undefined,
    ),
  ];
}
