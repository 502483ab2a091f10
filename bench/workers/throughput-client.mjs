// Per-key throughput in a fresh process (so its first request opens a cold connection): CALLS calls of one key fired
// at once through a ServiceClient with its default, process-wide rate limiter and default options.
// Prints the fetch-call times (this process's clock) and how each call ended.
import { ServiceClient } from '../../dist/index.js';
import { model, report } from './fixture.mjs';

const PORT = Number(process.env.PORT);
const CALLS = Number(process.env.CALLS ?? 12);
const fetchCalls = [];
const timedFetch = (input, init) => {
  fetchCalls.push(performance.now());
  return fetch(input, init);
};
const client = new ServiceClient({
  apiKey: `bench_throughput_key_${process.pid}`,
  baseUrl: `http://127.0.0.1:${PORT}/api/partner`,
  fetch: timedFetch,
});
const t0 = performance.now();
const results = await Promise.allSettled(
  Array.from({ length: CALLS }, (_, i) => client.createEwayBill(`doc-${i}`, model)),
);
report({
  wallMs: performance.now() - t0,
  fetchCalls: fetchCalls.map((t) => t - t0),
  fulfilled: results.filter((r) => r.status === 'fulfilled').length,
  rejected: results.filter((r) => r.status === 'rejected').map((r) => `${r.reason?.code ?? r.reason?.name}`),
});
