// CALLS calls queued on one key (the default process-wide limiter, stub fetch), each with its own AbortController,
// then every call aborted through its signal (ORDER: fifo, reverse or random). Prints the time from the first abort
// until every call has settled, and the longest the event loop was blocked in that span: the largest gap between two
// ticks of a 1 ms timer chain (Node 24's monitorEventLoopDelay did not register a 300 ms busy loop here, so its max
// is printed beside it only for reference).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ServiceClient } from '../../dist/index.js';
import { check, model, report, stubFetch } from './fixture.mjs';

const CALLS = Number(process.env.CALLS ?? 100_000);
const ORDER = process.env.ORDER ?? 'fifo';
const client = new ServiceClient({
  apiKey: 'bench_abort_key_0123456789',
  baseUrl: 'https://bench.invalid/api/partner',
  fetch: stubFetch,
});

const controllers = Array.from({ length: CALLS }, () => new AbortController());
const t0 = performance.now();
const calls = controllers.map((c, i) => client.createEwayBill(`doc-${i}`, model, { signal: c.signal }));
const settled = Promise.allSettled(calls);
// Let every call reach the limiter's queue.
await new Promise((resolve) => setTimeout(resolve, 50));
const queueMs = performance.now() - t0;

const order = controllers.map((_, i) => i);
if (ORDER === 'reverse') order.reverse();
if (ORDER === 'random') {
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
}

/** The largest gap between ticks of a 1 ms timer chain, while it runs. */
function blockWatch() {
  let last = performance.now();
  let longest = 0;
  let timer;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  return {
    reset: () => {
      longest = 0;
    },
    stop: () => {
      clearTimeout(timer);
      tick();
      clearTimeout(timer);
      return longest;
    },
  };
}

const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
const watch = blockWatch();
// Let the monitor's timer run a few times first: a delay is only recorded between two of its ticks.
await new Promise((resolve) => setTimeout(resolve, 30));
delay.reset();
watch.reset();
const start = performance.now();
for (const i of order) controllers[i].abort();
const abortLoopMs = performance.now() - start;
const results = await settled;
const allSettledMs = performance.now() - start;
// Let the monitor sample once after the last settle, so a block at the very end is counted.
await new Promise((resolve) => setTimeout(resolve, 20));
delay.disable();
const longestBlockMs = watch.stop();
// The platform's own cost, for reference: as many bare AbortControllers, one 'abort' listener each rejecting a promise,
// aborted in the same order (abort() without a reason makes a DOMException, with its stack, every time).
const bare = Array.from({ length: CALLS }, () => new AbortController());
const bareSettled = Promise.allSettled(
  bare.map(
    (c) =>
      new Promise((_resolve, reject) =>
        c.signal.addEventListener('abort', () => reject(c.signal.reason), { once: true }),
      ),
  ),
);
const bareStart = performance.now();
for (const i of order) bare[i].abort();
await bareSettled;
const bareMs = performance.now() - bareStart;

const aborted = results.filter((r) => r.status === 'rejected' && r.reason?.name === 'AbortError').length;
const fulfilled = results.filter((r) => r.status === 'fulfilled').length;
check(aborted + fulfilled === CALLS, `${CALLS - aborted - fulfilled} calls failed otherwise`);
report({
  calls: CALLS,
  order: ORDER,
  queueMs,
  abortLoopMs,
  allSettledMs,
  bareMs,
  longestBlockMs,
  eldMaxMs: delay.max / 1e6,
  aborted,
  fulfilled,
});
process.exit(0);
