// Measure 1: client CPU per request over loopback, as a ratio to raw fetch, taken per round.
import { envNumber, fixed, row, spread, startWorker, summary } from './common.mjs';

export const title = 'client CPU per loopback POST vs raw fetch';

export async function run() {
  // BENCH_CPU_N sequential requests per variant in all, split into BENCH_CPU_ROUNDS rounds; within a round the
  // variants take turns request by request, in random order (see bench/workers/cpu-client.mjs).
  const TOTAL = envNumber('BENCH_CPU_N', 3000, 400);
  const ROUNDS = envNumber('BENCH_CPU_ROUNDS', 6, 2);
  const N = Math.max(1, Math.round(TOTAL / ROUNDS));
  const server = startWorker('server.mjs', { execArgv: [] });
  const { port } = await server.next();
  try {
    const client = startWorker('cpu-client.mjs', {
      env: { PORT: port, N, ROUNDS, WARMUP: Math.min(300, N), SDK_BEFORE: process.env.SDK_BEFORE ?? '' },
      execArgv: ['--expose-gc'],
    });
    await client.done();
    const rounds = client.all().map((r) => r.result);
    const us = (name) => summary(rounds.map((r) => r[name].cpuUs));
    const ratio = (name) => summary(rounds.map((r) => r[name].cpuUs / r.fetch.cpuUs));
    const x = (s) => spread(s, fixed(2), '×');
    const usText = (name) => `${spread(us(name), fixed(0))} µs`;
    const kyRatio = ratio('ky');
    const label = `client CPU per request, loopback POST, ${N * ROUNDS} sequential per variant, interleaved, ${ROUNDS} rounds, ratio to raw fetch`;
    return [
      row(`${label}: raw fetch`, `1.00× = ${usText('fetch')}`, undefined, 'reference'),
      row(`  ky alone`, `${x(kyRatio)} = ${usText('ky')}`, undefined, 'reference'),
      row(
        `  ky as the SDK's exchange calls it (one instance, no retry, no timeout)`,
        `${x(ratio('ky-as-sdk'))} = ${usText('ky-as-sdk')}`,
        undefined,
        'reference',
      ),
      row(`  openapi-fetch`, `${x(ratio('openapi-fetch'))} = ${usText('openapi-fetch')}`, undefined, 'reference'),
      row(
        `  SDK, preflight off`,
        `${x(ratio('sdk-preflight-off'))} = ${usText('sdk-preflight-off')}`,
        `ky ${kyRatio.median.toFixed(2)}×`,
        '≤ 1.3× raw fetch (issue 29)',
        ratio('sdk-preflight-off').median <= 1.3,
      ),
      row(
        `  SDK, default (preflight warn)`,
        `${x(ratio('sdk-default'))} = ${usText('sdk-default')}`,
        `ky ${kyRatio.median.toFixed(2)}×`,
        '≤ 1.3× raw fetch (issue 29)',
        ratio('sdk-default').median <= 1.3,
      ),
      ...(rounds[0]['sdk-before-preflight-off']
        ? [
            row(
              `  SDK_BEFORE's build, preflight off`,
              `${x(ratio('sdk-before-preflight-off'))} = ${usText('sdk-before-preflight-off')}`,
              process.env.SDK_BEFORE,
              'reference',
            ),
          ]
        : []),
    ];
  } finally {
    server.child.kill();
  }
}
