// What the default limiter's exact spacing costs in the keys measure: 10,000 keys × 3 calls with the stub fetch,
// through ServiceClient either with its default (process-wide) limiter or with a limiter that is bare p-throttle per
// key. One JSON line per run. Run (after npm run build): MODE=default npx node bench/workers/keys-limiter-ab.mjs, then
// MODE=pthrottle; alternate a few times, since the machine's load moves the figures.
import pThrottle from 'p-throttle';
import { ServiceClient } from '../../dist/index.js';
import { check, model, stubFetch } from './fixture.mjs';

const KEYS = Number(process.env.KEYS ?? 10_000);
const CALLS = 3;
const MODE = process.env.MODE ?? 'default';
check(MODE === 'default' || MODE === 'pthrottle', `MODE must be default or pthrottle; got ${MODE}`);
const baseUrl = 'https://bench.invalid/api/partner';
const gates = new Map();
const bareLimiter = {
  acquire(id) {
    let gate = gates.get(id);
    if (!gate) {
      gate = pThrottle({ limit: 1, interval: 1000, strict: true })(async () => undefined);
      gates.set(id, gate);
    }
    return gate();
  },
};
await (await stubFetch()).json();
const t0 = performance.now();
const jobs = [];
for (let k = 0; k < KEYS; k++) {
  const options = { apiKey: `bench_key_${k}_0123456789`, baseUrl, fetch: stubFetch };
  const client = new ServiceClient(MODE === 'pthrottle' ? { ...options, rateLimiter: bareLimiter } : options);
  for (let c = 0; c < CALLS; c++) jobs.push(client.createEwayBill(`doc-${k}-${c}`, model));
}
const results = await Promise.allSettled(jobs);
const fulfilled = results.filter((r) => r.status === 'fulfilled').length;
check(fulfilled === KEYS * CALLS, `${fulfilled} of ${KEYS * CALLS} calls fulfilled`);
const wallMs = Math.round(performance.now() - t0);
console.log(
  JSON.stringify({ mode: MODE, keys: KEYS, wallMs, peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) }),
);
process.exit(0);
