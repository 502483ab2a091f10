// Issue 19, item 5: what OpenTelemetry costs a call. Without a registration the client reads one property and goes on;
// with a tracer and meter provider it makes a span, three metric records and a traceparent.
import { envNumber, fixed, row, spread, startWorker, summary } from './common.mjs';

export const title = 'OpenTelemetry: client CPU per loopback POST, without and with a provider';

export async function run() {
  const TOTAL = envNumber('BENCH_OTEL_N', 3000, 300);
  const ROUNDS = envNumber('BENCH_OTEL_ROUNDS', 6, 2);
  const N = Math.max(1, Math.round(TOTAL / ROUNDS));
  const server = startWorker('server.mjs', { execArgv: [] });
  const { port } = await server.next();
  try {
    const client = startWorker('otel-client.mjs', {
      env: { PORT: port, N, ROUNDS, WARMUP: Math.min(300, N) },
      execArgv: ['--expose-gc'],
    });
    await client.done();
    const rounds = client.all().map((r) => r.result);
    const base = 'no OpenTelemetry';
    const us = (name) => summary(rounds.map((r) => r[name].cpuUs));
    const ratio = (name) => summary(rounds.map((r) => r[name].cpuUs / r[base].cpuUs));
    const text = (name) => `${spread(ratio(name), fixed(2), '×')} = ${spread(us(name), fixed(0))} µs`;
    const empty = ratio('api loaded, nothing registered');
    const label = `OpenTelemetry, loopback POST, ${N * ROUNDS} sequential per mode, interleaved, ${ROUNDS} rounds, ratio to none`;
    return [
      row(`${label}: none in the process`, `1.00× = ${spread(us(base), fixed(0))} µs`, undefined, 'reference'),
      row(
        '  @opentelemetry/api loaded, nothing registered',
        text('api loaded, nothing registered'),
        undefined,
        '≤ 1.03× (the bench resolution)',
        empty.median <= 1.03,
      ),
      row(
        '  tracer + meter provider registered (span, 3 records, traceparent)',
        text('tracer + meter registered'),
        undefined,
        'measured',
      ),
    ];
  } finally {
    server.child.kill();
  }
}
