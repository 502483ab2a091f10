// KEYS keys × CALLS calls fired at once with a stub fetch, in a fresh process: MODE=sdk (a ServiceClient per key, the
// default process-wide limiter), MODE=ky (p-throttle per key, the POST through ky) or MODE=pthrottle (bare p-throttle per key: a Map of
// pThrottle({ limit: 1, interval: 1000, strict: true }), the same stub fetch, the answer read as JSON).
// Prints {phase:'work'} when every call has settled (wall, peak RSS, heap after GC, bytes allocated on the JS heap per
// call, CPU time, time in GC and the number of GCs while the calls ran, and the JS heap's peak: used when a GC started, and reserved), then waits IDLE_MS without
// another call and prints {phase:'idle'} with the heap after GC. Nothing is kept referenced after the work.
import {
  check,
  heapAfterGc,
  model,
  stubFetch as plainStub,
  report,
  requestStubFetch,
  startAllocation,
} from './fixture.mjs';

// FETCH=request: the stub builds the Request a real fetch builds from its arguments (see fixture.mjs). BASE_URL set:
// the runtime's own fetch against that server (bench/workers/server.mjs on loopback); the SDK is given no `fetch`.
const LOOPBACK = process.env.BASE_URL;
const stubFetch = LOOPBACK ? globalThis.fetch : process.env.FETCH === 'request' ? requestStubFetch : plainStub;

const MODE = process.env.MODE;
const KEYS = Number(process.env.KEYS ?? 10_000);
const CALLS = Number(process.env.CALLS ?? 3);
const IDLE_MS = Number(process.env.IDLE_MS ?? 35_000);
const baseUrl = LOOPBACK ?? 'https://bench.invalid/api/partner';

async function sdkWork() {
  const { ServiceClient } = await import('../../dist/index.js');
  const jobs = [];
  for (let k = 0; k < KEYS; k++) {
    const apiKey = `bench_key_${k}_0123456789`;
    const client = new ServiceClient(LOOPBACK ? { apiKey, baseUrl } : { apiKey, baseUrl, fetch: stubFetch });
    for (let c = 0; c < CALLS; c++) jobs.push(client.createEwayBill(`doc-${k}-${c}`, model));
  }
  return Promise.allSettled(jobs);
}

async function pThrottleWork(viaKy = false) {
  const { default: pThrottle } = await import('p-throttle');
  const throttles = new Map();
  // MODE=ky: the same, with the POST made through one ky instance (ky's Request, its options merge), as the SDK's is.
  const api = viaKy
    ? (await import('ky')).default.create({ retry: 0, timeout: false, throwHttpErrors: false })
    : undefined;
  const send = async (key, doc) => {
    const url = `${baseUrl}/v2/ewaybill/${doc}`;
    const init = {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(model),
    };
    const response = api ? await api(url, { ...init, fetch: stubFetch }) : await stubFetch(url, init);
    return response.json();
  };
  const jobs = [];
  for (let k = 0; k < KEYS; k++) {
    const key = `bench_key_${k}_0123456789`;
    if (!throttles.has(key)) throttles.set(key, pThrottle({ limit: 1, interval: 1000, strict: true })(send));
    const throttled = throttles.get(key);
    for (let c = 0; c < CALLS; c++) jobs.push(throttled(key, `doc-${k}-${c}`));
  }
  return Promise.allSettled(jobs);
}

// Load the code under test (and Node's lazily loaded fetch classes, zod's compiled schema) before the starting heap
// is taken, so the figures are what the calls leave.
if (MODE === 'sdk') (await import('../../dist/model.js')).EwayBillModelSchema.safeParse(model);
else if (MODE === 'pthrottle') await import('p-throttle');
else if (MODE === 'ky') await Promise.all([import('p-throttle'), import('ky')]);
else check(false, `MODE must be sdk, pthrottle or ky; got ${MODE}`);
await (LOOPBACK
  ? await fetch(`${baseUrl}/v2/ewaybill/warm`, { method: 'POST', body: '{}' })
  : await stubFetch()
).json();
const heapStart = await heapAfterGc();

const allocation = startAllocation();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const results = await (MODE === 'sdk' ? sdkWork() : pThrottleWork(MODE === 'ky'));
const wallMs = performance.now() - t0;
// CPU time of the process (every thread: V8's GC helpers too): less at the mercy of other processes than wall time.
const { user, system } = process.cpuUsage(cpu0);
const cpuMs = (user + system) / 1000;
const { allocated, gcMs, gcCount, peakUsed, peakTotal } = allocation.stop();
const fulfilled = results.filter((r) => r.status === 'fulfilled').length;
check(fulfilled === KEYS * CALLS, `${MODE}: ${fulfilled} of ${KEYS * CALLS} calls fulfilled`);
const peakRss = process.resourceUsage().maxRSS * 1024;
results.length = 0;
const heapAfterWork = await heapAfterGc();
const allocatedPerCall = allocated / (KEYS * CALLS);
report({
  phase: 'work',
  mode: MODE,
  wallMs,
  cpuMs,
  peakRss,
  heapStart,
  heapAfterWork,
  allocatedPerCall,
  gcMs,
  gcCount,
  peakUsed,
  peakTotal,
});

await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
report({ phase: 'idle', mode: MODE, heapStart, heapAfterIdle: await heapAfterGc() });
