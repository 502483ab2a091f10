// Measure 2: per-key throughput when the service answers slowly. A server in its own process answers after 300 ms
// and after 1.5 s (± BENCH_JITTER_MS) and enforces 1 request/s/key with 429s; a fresh client process sends
// BENCH_THROUGHPUT_CALLS calls of one key at once. Both answer times run side by side (separate processes and keys).
import { envNumber, fixed, row, spread, startWorker, summary } from './common.mjs';

export const title = 'per-key throughput with slow answers (server in its own process)';

async function scenario(delayMs, calls, jitterMs) {
  const server = startWorker('server.mjs', {
    env: { DELAY_MS: delayMs, JITTER_MS: jitterMs, INTERVAL_MS: 1000 },
    execArgv: [],
  });
  try {
    const { port } = await server.next();
    const client = startWorker('throughput-client.mjs', { env: { PORT: port, CALLS: calls } });
    await client.done();
    const outcome = client.all().at(-1);
    server.child.send('report');
    const { keys } = await server.next();
    const arrivals = keys.flatMap((k) => k.arrivals).toSorted((a, b) => a - b);
    const statuses = keys.flatMap((k) => k.statuses);
    const gaps = arrivals.slice(1).map((t, i) => t - arrivals[i]);
    const periodMs = arrivals.length > 1 ? (arrivals.at(-1) - arrivals[0]) / (arrivals.length - 1) : Number.NaN;
    return {
      delayMs,
      calls,
      arrivals: arrivals.length,
      gaps: summary(gaps),
      firstGap: gaps[0],
      periodMs,
      fraction: 1000 / periodMs,
      early: gaps.filter((g) => g < 1000).length,
      tooMany: statuses.filter((s) => s === 429).length,
      outcome,
    };
  } finally {
    server.child.kill();
  }
}

export async function run({ notes }) {
  const CALLS = envNumber('BENCH_THROUGHPUT_CALLS', 12, 4);
  const JITTER = envNumber('BENCH_JITTER_MS', 50);
  const results = await Promise.all([scenario(300, CALLS, JITTER), scenario(1500, CALLS, JITTER)]);
  const rows = [];
  for (const r of results) {
    const ok = r.fraction >= 0.95 && r.early === 0 && r.tooMany === 0 && r.outcome.rejected.length === 0;
    const answer = r.delayMs === 300 ? '300 ms' : '1.5 s';
    rows.push(
      row(
        `per-key throughput, answers after ${answer} ±${JITTER} ms, ${r.calls} calls of one key, cold start`,
        `period ${(r.periodMs / 1000).toFixed(2)} s = ${r.fraction.toFixed(2)} of the limit; ` +
          `gaps ${spread(r.gaps, fixed(0))} ms, first ${r.firstGap?.toFixed(0)} ms; ` +
          `${r.early} starts < 1000 ms apart, ${r.tooMany} 429s`,
        'the limit: 1 request/s',
        '≥ 0.95 of the limit, 0 gaps < 1000 ms, 0 429s',
        ok,
      ),
    );
    if (r.outcome.rejected.length > 0) {
      notes.push(`throughput ${answer}: ${r.outcome.rejected.length} calls rejected: ${r.outcome.rejected.join(', ')}`);
    }
  }
  return rows;
}
