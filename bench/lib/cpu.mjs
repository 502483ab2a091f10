// Measure 1: client CPU per request over loopback, as a ratio to raw fetch, taken per round.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { envNumber, fixed, row, startWorker, summary } from './common.mjs';

export const title = 'client CPU per loopback POST vs raw fetch';

/** The value at `share` of the sorted values (0.25: the lower quartile), the nearest rank. */
function quantile(values, share) {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.round((sorted.length - 1) * share)];
}

/** Bundles the floor's parts (bench/workers/cpu-floor-entry.ts) into a folder of its own; returns the module's path. */
async function buildFloor() {
  mkdirSync(join(process.cwd(), '.tmp'), { recursive: true });
  const floorModule = join(mkdtempSync(join(process.cwd(), '.tmp', 'cpu-floor-')), 'floor.mjs');
  await build({
    entryPoints: [new URL('../workers/cpu-floor-entry.ts', import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: floorModule,
    external: ['zod', 'ky', 'p-throttle'],
    define: { __SDK_VERSION__: '"0.0.0-bench"' },
    logLevel: 'silent',
  });
  return floorModule;
}

export async function run() {
  // BENCH_CPU_N sequential requests per variant in all, split into BENCH_CPU_ROUNDS rounds; within a round the
  // variants take turns request by request, in random order (see bench/workers/cpu-client.mjs). Many short rounds:
  // the figure is the median of the rounds' ratios, and the quartiles show how steady it is.
  const TOTAL = envNumber('BENCH_CPU_N', 5000, 400);
  const ROUNDS = envNumber('BENCH_CPU_ROUNDS', 20, 4);
  const TRIM = envNumber('BENCH_CPU_TRIM', 0.02);
  const N = Math.max(1, Math.round(TOTAL / ROUNDS));
  // BENCH_CPU_FLOOR=1: the floor's rows too. Its parts, bundled from src (they are internal): the model check every
  // call makes, and the preflight; in the repository (.tmp/, ignored by git), where its imports of zod resolve. Not
  // by default: every variant a round holds raises every other's figure a little (the caches each request finds
  // cold hold less of its code), and the goal's rows are kept comparable with the earlier sessions' (six variants).
  const floorModule = process.env.BENCH_CPU_FLOOR === '1' ? await buildFloor() : undefined;
  const server = startWorker('server.mjs', { execArgv: [] });
  const { port } = await server.next();
  try {
    const client = startWorker('cpu-client.mjs', {
      env: {
        PORT: port,
        N,
        ROUNDS,
        TRIM,
        WARMUP: Math.min(300, N),
        SDK_BEFORE: process.env.SDK_BEFORE ?? '',
        VARIANTS: process.env.BENCH_CPU_VARIANTS ?? '',
        FLOOR_MODULE: floorModule ?? '',
      },
      execArgv: ['--expose-gc'],
    });
    await client.done();
    const rounds = client.all().map((r) => r.result);
    // Per round: the trimmed mean (without each variant's costliest TRIM share of requests), the figure; and the plain
    // mean, whose tail is spread over the variants at random (see the worker), pooled over all rounds for reference.
    const ratios = (name) => rounds.map((r) => r[name].trimmedUs / r.fetch.trimmedUs);
    const ratio = (name) => summary(ratios(name)).median;
    const quartiles = (name) => `${fixed(2)(quantile(ratios(name), 0.25))}–${fixed(2)(quantile(ratios(name), 0.75))}`;
    const us = (name) => summary(rounds.map((r) => r[name].trimmedUs)).median.toFixed(0);
    const pooled = (name) =>
      rounds.reduce((sum, r) => sum + r[name].cpuUs, 0) / rounds.reduce((sum, r) => sum + r.fetch.cpuUs, 0);
    const figure = (name) => `${ratio(name).toFixed(2)}× (${quartiles(name)}) = ${us(name)} µs`;
    const withTail = (name) => `with the tail ${pooled(name).toFixed(2)}×`;
    const label =
      `client CPU per request, loopback POST, ${N * ROUNDS} sequential per variant, interleaved, ${ROUNDS} rounds, ` +
      `ratio to raw fetch of each round's mean without the costliest ${(TRIM * 100).toFixed(0)} % of requests, ` +
      'median (quartiles) of the rounds: raw fetch';
    const goal = (name) =>
      row(
        `  ${name === 'sdk-default' ? 'SDK, default (preflight warn)' : 'SDK, preflight off'}`,
        figure(name),
        kyNote(name),
        '≤ 1.3× raw fetch (issue 29)',
        ratio(name) <= 1.3,
      );
    // A row per measured variant (BENCH_CPU_VARIANTS may leave some out).
    const measured = (name, make) => (rounds[0][name] ? [make()] : []);
    const kyNote = (name) => (rounds[0].ky ? `ky ${ratio('ky').toFixed(2)}×; ` : '') + withTail(name);
    return [
      row(
        label,
        `1.00× = ${us('fetch')} µs`,
        `mean with the tail ${summary(rounds.map((r) => r.fetch.cpuUs)).median.toFixed(0)} µs`,
        'reference',
      ),
      ...measured('ky', () => row(`  ky alone`, figure('ky'), withTail('ky'), 'reference')),
      ...measured('ky-as-sdk', () =>
        row(
          `  ky as the SDK's exchange calls it (one instance, no retry, no timeout)`,
          figure('ky-as-sdk'),
          withTail('ky-as-sdk'),
          'reference',
        ),
      ),
      ...measured('floor-check', () =>
        row(
          `  floor: ky as the SDK calls it, after the model check (the fast parser, as every call makes it)`,
          figure('floor-check'),
          withTail('floor-check'),
          'reference: what preflight off cannot go below',
        ),
      ),
      ...measured('floor-preflight', () =>
        row(
          `  floor: the same, and the preflight (the default, 'warn')`,
          figure('floor-preflight'),
          withTail('floor-preflight'),
          'reference: what the default cannot go below',
        ),
      ),
      ...measured('openapi-fetch', () =>
        row(`  openapi-fetch`, figure('openapi-fetch'), withTail('openapi-fetch'), 'reference'),
      ),
      ...measured('sdk-preflight-off', () => goal('sdk-preflight-off')),
      ...measured('sdk-default', () => goal('sdk-default')),
      ...measured('sdk-before-preflight-off', () =>
        row(
          `  SDK_BEFORE's build, preflight off`,
          figure('sdk-before-preflight-off'),
          `${process.env.SDK_BEFORE}; ${withTail('sdk-before-preflight-off')}`,
          'reference',
        ),
      ),
    ];
  } finally {
    server.child.kill();
    if (floorModule) rmSync(dirname(floorModule), { recursive: true, force: true });
  }
}
