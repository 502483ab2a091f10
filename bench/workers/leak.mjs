// What finished calls leave behind, in a fresh process, stub fetch, a rate limiter that never waits, calls one after
// another. MODE=signal: CALLS calls with `timeout: false` and one long-lived AbortSignal passed to every call; prints
// the heap growth after GC and the 'abort' listeners left on that signal. MODE=timeout: CALLS calls with the default
// timeout; prints the heap growth right after the calls and after GC. MODE=http: a custom fetch that does not go
// through Node's fetch (node:http to a loopback server, as a proxy agent or an instrumented fetch would), with
// `timeout: false` (issue 17, finding 11: a custom fetch leaked about 1.3 KB per call).
import { getEventListeners } from 'node:events';
import http from 'node:http';
import { ServiceClient } from '../../dist/index.js';
import { check, heapAfterGc, model, noWaitLimiter, report, SUCCESS_BODY, stubFetch } from './fixture.mjs';

const MODE = process.env.MODE;
const CALLS = Number(process.env.CALLS ?? 20_000);
const baseUrl = 'https://bench.invalid/api/partner';
const apiKey = 'bench_leak_key_0123456789';

check(['signal', 'timeout', 'http'].includes(MODE), `MODE must be signal, timeout or http; got ${MODE}`);

/** A fetch over node:http: never touches undici, as a proxy agent's or a mocking library's fetch. */
async function httpFetch(server) {
  const agent = new http.Agent({ keepAlive: true });
  const fetchOverHttp = async (input) => {
    const body = await input.text();
    return new Promise((resolve, reject) => {
      const req = http.request(
        input.url,
        { method: input.method, headers: Object.fromEntries(input.headers), agent, signal: input.signal },
        (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () =>
            resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers: res.headers })),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };
  return {
    fetchOverHttp,
    close() {
      agent.destroy();
      server.close();
    },
  };
}

let loopback;
let fetchImpl = stubFetch;
let url = baseUrl;
if (MODE === 'http') {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(SUCCESS_BODY));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  loopback = await httpFetch(server);
  fetchImpl = loopback.fetchOverHttp;
  url = `http://127.0.0.1:${server.address().port}/api/partner`;
}
const client = new ServiceClient({
  apiKey,
  baseUrl: url,
  fetch: fetchImpl,
  rateLimiter: noWaitLimiter,
  ...(MODE === 'signal' || MODE === 'http' ? { timeout: false } : {}),
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
loopback?.close();
process.exit(0);
