// Measure 7: what finished calls leave in memory. Fresh processes, stub fetch, a limiter that never waits:
// BENCH_LEAK_CALLS calls with `timeout: false` and one long-lived AbortSignal (heap growth after GC, 'abort'
// listeners left on the signal), and BENCH_LEAK_TIMEOUT_CALLS calls with the default timeout (heap right after,
// after GC). Both processes run side by side.
import { envNumber, MiB, row, runWorker } from './common.mjs';

export const title = 'memory left by finished calls (long-lived signal; default timeout)';

const delta = (bytes) => `${bytes >= 0 ? '+' : ''}${MiB(bytes).toFixed(1)} MiB`;

export async function run() {
  const SIGNAL_CALLS = envNumber('BENCH_LEAK_CALLS', 20_000, 2000);
  const TIMEOUT_CALLS = envNumber('BENCH_LEAK_TIMEOUT_CALLS', 10_000, 1000);
  const signal = await runWorker('leak.mjs', { env: { MODE: 'signal', CALLS: SIGNAL_CALLS } });
  const timeout = await runWorker('leak.mjs', { env: { MODE: 'timeout', CALLS: TIMEOUT_CALLS } });
  const HTTP_CALLS = envNumber('BENCH_LEAK_HTTP_CALLS', 20_000, 2000);
  const overHttp = await runWorker('leak.mjs', { env: { MODE: 'http', CALLS: HTTP_CALLS } });
  const httpGrowth = overHttp.heapAfter - overHttp.heapStart;
  // Issue 17, finding 11: flat (< 2 MiB per 20,000 calls after GC) whatever the fetch.
  const httpLimit = Math.max(2, (2 * HTTP_CALLS) / 20_000) * 1024 * 1024;
  const signalGrowth = signal.heapAfter - signal.heapStart;
  const timeoutGrowth = timeout.heapAfter - timeout.heapStart;
  // The goals are for the full counts (< 20 MiB after 20,000 and after 10,000 calls); smaller runs get a proportional
  // share, with 2 MiB of room for the heap's own noise.
  const limitFor = (calls, fullCalls) => Math.max(2, (20 * calls) / fullCalls) * 1024 * 1024;
  const signalLimit = limitFor(SIGNAL_CALLS, 20_000);
  const timeoutLimit = limitFor(TIMEOUT_CALLS, 10_000);
  const perCall = (bytes, calls) => `${(bytes / calls / 1024).toFixed(2)} KiB per call`;
  const goal = (limit, suffix = '') => `< ${MiB(limit).toFixed(0)} MiB${suffix}`;
  return [
    row(
      `${SIGNAL_CALLS.toLocaleString('en-US')} calls, timeout: false, one long-lived AbortSignal: heap after GC`,
      `${delta(signalGrowth)} = ${perCall(signalGrowth, SIGNAL_CALLS)}`,
      `${((signal.wallMs * 1000) / SIGNAL_CALLS).toFixed(0)} µs per call (stub fetch)`,
      goal(signalLimit),
      signalGrowth < signalLimit,
    ),
    row(
      "  'abort' listeners left on that signal",
      `${signal.listenersAfter} (before the calls ${signal.listenersBefore})`,
      undefined,
      '0',
      signal.listenersAfter === 0,
    ),
    row(
      `${TIMEOUT_CALLS.toLocaleString('en-US')} calls, default timeout (30 s): heap right after; after GC`,
      `${delta(timeout.heapRightAfter - timeout.heapStart)}; ${delta(timeoutGrowth)} after GC = ${perCall(timeoutGrowth, TIMEOUT_CALLS)}`,
      undefined,
      goal(timeoutLimit, ' after GC'),
      timeoutGrowth < timeoutLimit,
    ),
    row(
      `${HTTP_CALLS.toLocaleString('en-US')} calls, a custom fetch over node:http (not undici), timeout: false: heap after GC`,
      `${delta(httpGrowth)} = ${perCall(httpGrowth, HTTP_CALLS)}`,
      `${((overHttp.wallMs * 1000) / HTTP_CALLS).toFixed(0)} µs per call (loopback)`,
      goal(httpLimit),
      httpGrowth < httpLimit,
    ),
  ];
}
