// Measure 8: BENCH_ABORT_CALLS calls queued on one key (default limiter, stub fetch), then all aborted through their
// own signals, in a fresh process: time from the first abort until all have settled, and the longest event-loop block.
// A run that has not finished after BENCH_ABORT_LIMIT_S seconds is stopped and reported as slower than that.
import { envNumber, row, startWorker } from './common.mjs';

export const title = 'abort a long queue on one key';

export async function run() {
  const CALLS = envNumber('BENCH_ABORT_CALLS', 100_000, 10_000);
  const ORDER = process.env.BENCH_ABORT_ORDER ?? 'fifo';
  const LIMIT_S = envNumber('BENCH_ABORT_LIMIT_S', 45, 20);
  // The goal is < 200 ms at 100,000 calls; fewer calls get a proportional share (at least 20 ms).
  const goalMs = Math.max(20, (200 * CALLS) / 100_000);
  const goal = `< ${goalMs.toFixed(0)} ms`;
  const worker = startWorker('abort.mjs', { env: { CALLS, ORDER } });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    worker.child.kill();
  }, LIMIT_S * 1000);
  let r;
  try {
    r = await worker.next();
    await worker.done();
  } catch (error) {
    if (!timedOut) throw error;
  } finally {
    clearTimeout(timer);
  }
  const label = `${CALLS.toLocaleString('en-US')} calls queued on one key, then all aborted (${ORDER} order)`;
  if (!r) {
    return [
      row(`${label}: time to abort all`, `> ${LIMIT_S} s (stopped)`, undefined, goal, false),
      row('  longest event-loop block while aborting', `> ${LIMIT_S} s (stopped)`, undefined, goal, false),
      row("  the SDK's own part (total − bare AbortControllers)", 'n/a (stopped)', undefined, goal, false),
    ];
  }
  return [
    row(
      `${label}: time to abort all`,
      `${r.allSettledMs.toFixed(0)} ms (abort() loop ${r.abortLoopMs.toFixed(0)} ms)`,
      `${CALLS.toLocaleString('en-US')} bare AbortControllers with a listener: ${r.bareMs.toFixed(0)} ms`,
      goal,
      r.allSettledMs < goalMs,
    ),
    row(
      "  the SDK's own part (total − bare AbortControllers)",
      `${(r.allSettledMs - r.bareMs).toFixed(0)} ms`,
      `queueing the calls took ${(r.queueMs / 1000).toFixed(1)} s`,
      goal,
      r.allSettledMs - r.bareMs < goalMs,
    ),
    row(
      '  longest event-loop block while aborting',
      `${r.longestBlockMs.toFixed(0)} ms`,
      `${r.aborted.toLocaleString('en-US')} AbortErrors, ${r.fulfilled} sent`,
      goal,
      r.longestBlockMs < goalMs,
    ),
  ];
}
