// Client CPU per request: N sequential loopback POSTs per variant per round, CPU of this process only (the server is
// another process). Prints one JSON line per round.
import ky from 'ky';
import createOpenApiClient from 'openapi-fetch';
import { ServiceClient } from '../../dist/index.js';
import { check, model, noWaitLimiter, report } from './fixture.mjs';

const PORT = Number(process.env.PORT);
const N = Number(process.env.N ?? 3000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const WARMUP = Number(process.env.WARMUP ?? 300);
const baseUrl = `http://127.0.0.1:${PORT}/api/partner`;
const apiKey = 'bench_cpu_key_0123456789';
const url = `${baseUrl}/v2/ewaybill/doc-1`;
const headers = {
  authorization: `Bearer ${apiKey}`,
  'content-type': 'application/json',
  accept: 'application/json',
};

const api = ky.create({ headers });
// ky as the SDK's exchange calls it (src/client/exchange.ts): one instance without ky's retry, timeout or status
// errors, the body a JSON string, a fetch that gives the attempt's own signal to fetch, the body read as text. What
// this costs over raw fetch is ky's share of the SDK's cost; the SDK over this is its own work beside ky.
const kyAsSdk = ky.create({ retry: 0, timeout: false, throwHttpErrors: false });
// openapi-fetch (what a generated-types client costs), with the same headers.
const openapi = createOpenApiClient({ baseUrl, headers });
const sdkOff = new ServiceClient({ apiKey, baseUrl, rateLimiter: noWaitLimiter, preflight: 'off' });
const sdkDefault = new ServiceClient({ apiKey, baseUrl, rateLimiter: noWaitLimiter });

const variants = {
  fetch: async () => {
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(model) });
    return (await response.json()).success;
  },
  ky: async () => (await api.post(url, { json: model }).json()).success,
  'ky-as-sdk': async () => {
    const attempt = new AbortController();
    const response = await kyAsSdk(url, {
      method: 'POST',
      body: JSON.stringify(model),
      headers,
      redirect: 'manual',
      fetch: (request, init) => fetch(request, { ...init, signal: attempt.signal }),
    });
    return JSON.parse(await response.text()).success;
  },
  'openapi-fetch': async () =>
    (await openapi.POST('/v2/ewaybill/{doc_hash_id}', { params: { path: { doc_hash_id: 'doc-1' } }, body: model })).data
      .success,
  'sdk-preflight-off': async () => (await sdkOff.createEwayBill('doc-1', model)).success,
  'sdk-default': async () => (await sdkDefault.createEwayBill('doc-1', model)).success,
};
// SDK_BEFORE=<path of another build's dist/index.js>: that build beside this one in the same rounds (an A/B of a change).
if (process.env.SDK_BEFORE) {
  const { ServiceClient: Before } = await import(process.env.SDK_BEFORE);
  const before = new Before({ apiKey, baseUrl, rateLimiter: noWaitLimiter, preflight: 'off' });
  variants['sdk-before-preflight-off'] = async () => (await before.createEwayBill('doc-1', model)).success;
}
const names = Object.keys(variants);

for (const [name, fn] of Object.entries(variants)) {
  for (let i = 0; i < WARMUP; i++) check((await fn()) === true, `${name} did not get a success answer`);
}

// Interleaved at the finest grain: each step of a round is one request of every variant, in a fresh random order (so
// no variant always follows the same one), each bracketed by process.cpuUsage(). Calls are sequential, so a request's
// own work happens inside its bracket; work one variant leaves behind (a GC, a timer) lands on others at random.
let seed = 12_345;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
};
const order = [...names];
const shuffle = () => {
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
};
for (let round = 0; round < ROUNDS; round++) {
  const cpuUs = Object.fromEntries(names.map((name) => [name, 0]));
  globalThis.gc();
  const start = performance.now();
  for (let i = 0; i < N; i++) {
    for (const name of shuffle()) {
      const before = process.cpuUsage();
      await variants[name]();
      const used = process.cpuUsage(before);
      cpuUs[name] += used.user + used.system;
    }
  }
  const result = Object.fromEntries(names.map((name) => [name, { cpuUs: cpuUs[name] / N }]));
  report({ round, result, wallMs: performance.now() - start });
}
