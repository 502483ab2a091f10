// What finished calls leave behind, in a fresh process, stub fetch, a rate limiter that never waits, calls one after
// another. MODE=signal: CALLS calls with `timeout: false` and one long-lived AbortSignal passed to every call; prints
// the heap growth after GC and the 'abort' listeners left on that signal. MODE=timeout: CALLS calls with the default
// timeout; prints the heap growth right after the calls and after GC.
import { getEventListeners } from 'node:events';
import { ServiceClient } from '../../dist/index.js';
import { check, heapAfterGc, model, noWaitLimiter, report, stubFetch } from './fixture.mjs';

const MODE = process.env.MODE;
const CALLS = Number(process.env.CALLS ?? 20_000);
const baseUrl = 'https://bench.invalid/api/partner';
const apiKey = 'bench_leak_key_0123456789';

check(MODE === 'signal' || MODE === 'timeout', `MODE must be signal or timeout; got ${MODE}`);
const client = new ServiceClient({
  apiKey,
  baseUrl,
  fetch: stubFetch,
  rateLimiter: noWaitLimiter,
  ...(MODE === 'signal' ? { timeout: false } : {}),
});
const controller = new AbortController();
const options = MODE === 'signal' ? { signal: controller.signal } : undefined;

// Warm up (zod's compiled schema, Node's fetch classes) before the starting heap.
for (let i = 0; i < 200; i++) await client.createEwayBill('doc-warm', model, options);
const listenersBefore = getEventListeners(controller.signal, 'abort').length;
const heapStart = await heapAfterGc();

const t0 = performance.now();
for (let i = 0; i < CALLS; i++) {
  const result = await client.createEwayBill(`doc-${i}`, model, options);
  if (result.success !== true) check(false, `call ${i} did not succeed`);
}
const wallMs = performance.now() - t0;
const heapRightAfter = process.memoryUsage().heapUsed;
const heapAfter = await heapAfterGc();
report({
  mode: MODE,
  calls: CALLS,
  wallMs,
  heapStart,
  heapRightAfter,
  heapAfter,
  listenersBefore,
  listenersAfter: getEventListeners(controller.signal, 'abort').length,
});
process.exit(0);
