// What a call in flight holds: KEYS keys × CALLS calls fired at once at a fetch that holds every answer, in a fresh
// process with --expose-gc. Once the first call of every key is waiting in fetch (the others queued behind it for
// their key's slot), the heap after GC over the heap before, divided by the calls, is the memory each call in flight
// retains. MODE=sdk (a ServiceClient per key, the default limiter) or MODE=pthrottle (bare p-throttle per key, the
// same held fetch). Then every answer is released and every call must succeed. Prints one JSON line.
// 3,000 keys by default: the calls must all be fired before the first key's second turn (1025 ms later) sends its
// second call, or the figure mixes two states; inFetch says how many were waiting in fetch when the heap was taken.
import { check, heapAfterGc, model, noWaitLimiter, report, SUCCESS_BODY, stubFetch } from './fixture.mjs';

const MODE = process.env.MODE;
const KEYS = Number(process.env.KEYS ?? 3000);
const CALLS = Number(process.env.CALLS ?? 3);
const baseUrl = 'https://bench.invalid/api/partner';

const held = [];
const answer = () => new Response(SUCCESS_BODY, { status: 200, headers: { 'content-type': 'application/json' } });
/** A fetch that answers only when released. */
const heldFetch = () => new Promise((resolve) => held.push(resolve));

let fire;
if (MODE === 'sdk') {
  const { ServiceClient } = await import('../../dist/index.js');
  // Loads ky, the preflight and the answer path before the starting heap, without touching the shared limiter.
  const warm = new ServiceClient({
    apiKey: 'bench_warm_0123456789',
    baseUrl,
    fetch: stubFetch,
    rateLimiter: noWaitLimiter,
  });
  await warm.createEwayBill('warm', model);
  fire = () => {
    const jobs = [];
    for (let k = 0; k < KEYS; k++) {
      const client = new ServiceClient({ apiKey: `bench_key_${k}_0123456789`, baseUrl, fetch: heldFetch });
      for (let c = 0; c < CALLS; c++) jobs.push(client.createEwayBill(`doc-${k}-${c}`, model));
    }
    return jobs;
  };
} else if (MODE === 'pthrottle') {
  const { default: pThrottle } = await import('p-throttle');
  const send = async (fetch, key, doc) => {
    const response = await fetch(`${baseUrl}/v2/ewaybill/${doc}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(model),
    });
    return response.json();
  };
  await pThrottle({ limit: 1, interval: 1000, strict: true })(send)(stubFetch, 'warm', 'warm');
  fire = () => {
    const jobs = [];
    for (let k = 0; k < KEYS; k++) {
      const key = `bench_key_${k}_0123456789`;
      const throttled = pThrottle({ limit: 1, interval: 1000, strict: true })(send);
      for (let c = 0; c < CALLS; c++) jobs.push(throttled(heldFetch, key, `doc-${k}-${c}`));
    }
    return jobs;
  };
} else check(false, `MODE must be sdk or pthrottle; got ${MODE}`);

const heapStart = await heapAfterGc();
const jobs = fire();
const settled = Promise.allSettled(jobs);
jobs.length = 0;
const deadline = performance.now() + 20_000;
while (held.length < KEYS) {
  check(performance.now() < deadline, `${MODE}: only ${held.length} of ${KEYS} first calls reached fetch`);
  await new Promise((resolve) => setTimeout(resolve, 5));
}
const inFetch = held.length;
const heapHeld = await heapAfterGc();
const retainedPerCall = (heapHeld - heapStart) / (KEYS * CALLS);
// Answer every call: the first of each key now, the others as their slots come.
const releaser = setInterval(() => {
  for (const resolve of held.splice(0)) resolve(answer());
}, 5);
const results = await settled;
clearInterval(releaser);
const fulfilled = results.filter((r) => r.status === 'fulfilled').length;
check(fulfilled === KEYS * CALLS, `${MODE}: ${fulfilled} of ${KEYS * CALLS} calls fulfilled`);
report({ mode: MODE, keys: KEYS, calls: CALLS, inFetch, heapStart, heapHeld, retainedPerCall });
