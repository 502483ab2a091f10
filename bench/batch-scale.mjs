// Issue 17, finding 10: batches over endless input and over many keys. Stub fetch (no sockets), a limiter that never
// waits, preflight off: what is measured is the batch itself. Prints one JSON line per case.
//   lazy: a generator of 1,000,000 items, keepResults: false; time to the first request, heap growth after GC at
//         100k and at the end, event-loop delay p99.
//   keys: 10,000 keys × 1 item; time to the first request, event-loop delay p99 until all settled, wall time.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createEwayBills, ServiceClient } from '../dist/index.js';
import { model } from './workers/fixture.mjs';

const SUCCESS = JSON.stringify({ success: true, message: 'E-way bill 331000123456 generated' });
let firstRequestAt;
let requests = 0;
const fetch = async () => {
  requests += 1;
  firstRequestAt ??= performance.now();
  return new Response(SUCCESS, { status: 200, headers: { 'content-type': 'application/json' } });
};
const noWait = { acquire: async () => undefined };
const baseUrl = 'https://bench.invalid/api/partner';
/** The heap after GC, in a later turn: Node frees `WeakRef` targets only between turns of the event loop. */
const heap = async () => {
  for (let i = 0; i < 2; i++) {
    globalThis.gc?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
};
const MiB = (bytes) => Number((bytes / 1024 / 1024).toFixed(1));

async function lazy() {
  const client = new ServiceClient({ apiKey: 'bench_lazy_key', baseUrl, fetch, rateLimiter: noWait, preflight: 'off' });
  const total = Number(process.env.LAZY_ITEMS ?? 1_000_000);
  function* items() {
    for (let i = 0; i < total; i++) yield { docHashId: `doc_${i}`, model };
  }
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const start = await heap();
  let at100k;
  let settled = 0;
  let measuring = false;
  const t0 = performance.now();
  firstRequestAt = undefined;
  await createEwayBills(client, items(), {
    keepResults: false,
    onResult: () => {
      settled += 1;
      if (settled === 100_000 && !measuring) {
        measuring = true;
        heap().then((bytes) => {
          at100k = bytes;
        });
      }
    },
  });
  delay.disable();
  return {
    case: `lazy: ${total.toLocaleString('en-US')} items from a generator, keepResults: false`,
    firstRequestMs: Math.round(firstRequestAt - t0),
    heapAt100kMiB: at100k === undefined ? undefined : MiB(at100k - start),
    heapAtEndMiB: MiB((await heap()) - start),
    loopDelayP99Ms: Number((delay.percentile(99) / 1e6).toFixed(1)),
    wallS: Number(((performance.now() - t0) / 1000).toFixed(1)),
  };
}

async function keys() {
  const count = Number(process.env.KEYS ?? 10_000);
  const clients = new Map();
  for (let i = 0; i < count; i++) {
    clients.set(
      `k${i}`,
      new ServiceClient({ apiKey: `bench_key_${i}`, baseUrl, fetch, rateLimiter: noWait, preflight: 'off' }),
    );
  }
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const start = await heap();
  delay.enable();
  const t0 = performance.now();
  firstRequestAt = undefined;
  await createEwayBills(
    clients,
    [...clients.keys()].map((client, i) => ({ client, docHashId: `d_${i}`, model })),
    { keepResults: false },
  );
  delay.disable();
  return {
    case: `keys: ${count.toLocaleString('en-US')} keys × 1 item`,
    firstRequestMs: Math.round(firstRequestAt - t0),
    loopDelayP99Ms: Number((delay.percentile(99) / 1e6).toFixed(1)),
    heapMiB: MiB((await heap()) - start),
    wallS: Number(((performance.now() - t0) / 1000).toFixed(1)),
  };
}

for (const run of (process.argv[2] ?? 'keys,lazy').split(',')) {
  console.log(JSON.stringify(run === 'lazy' ? await lazy() : await keys()));
}
