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
/** The share of each variant's costliest requests left out of a round's trimmed mean (see `trimmedMean`). */
const TRIM = Number(process.env.TRIM ?? 0.02);
const baseUrl = `http://127.0.0.1:${PORT}/api/partner`;
const apiKey = 'bench_cpu_key_0123456789';
const url = `${baseUrl}/v2/ewaybill/doc-1`;
const headers = {
  authorization: `Bearer ${apiKey}`,
  'content-type': 'application/json',
  accept: 'application/json',
};

const api = ky.create({ headers });
// ky as the SDK's exchange calls it (src/client/exchange.ts) with the runtime's fetch: one instance without ky's retry,
// timeout or status errors, given the method alone; its fetch hands the runtime's fetch ky's URL and method with the
// headers and body as they are and the attempt's own signal; the body read as text. What this costs over raw fetch is
// ky's share of the SDK's cost; the SDK over this is its own work beside ky.
const kyAsSdk = ky.create({ retry: 0, timeout: false, throwHttpErrors: false });
// The floor of the SDK's own work (FLOOR_MODULE: the model check and the preflight, bundled from src by bench/lib/cpu.mjs):
// ky as the SDK calls it, after the checks every call makes before it may leave. No client that keeps ky and checks
// each request locally goes below it; the SDK's figure over it is its limiter, retry loop, timeout, capped read, typed
// errors and result.
const floor = process.env.FLOOR_MODULE ? await import(process.env.FLOOR_MODULE) : undefined;
if (floor) await floor.loaded(model);
const sendKyAsSdk = async (json) => {
  const attempt = new AbortController();
  const response = await kyAsSdk(url, {
    method: 'POST',
    fetch: (request, init) =>
      fetch(request.url, {
        ...init,
        method: request.method,
        headers,
        body: json,
        redirect: 'manual',
        signal: attempt.signal,
      }),
  });
  return JSON.parse(await response.text()).success;
};
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
  'ky-as-sdk': async () => sendKyAsSdk(JSON.stringify(model)),
  ...(floor && {
    'floor-check': async () => sendKyAsSdk(JSON.stringify(floor.checked(model))),
    'floor-preflight': async () => {
      const data = floor.checked(model);
      check(floor.preflightEwayBill(data, { docHashId: 'doc-1' }).length === 0, 'the model has preflight findings');
      return sendKyAsSdk(JSON.stringify(data));
    },
  }),
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
// VARIANTS=<names, comma-separated>: only those (raw fetch always), e.g. to see what the others' code does to a figure.
const only = process.env.VARIANTS ? new Set(['fetch', ...process.env.VARIANTS.split(',')]) : undefined;
const names = Object.keys(variants).filter((name) => !only || only.has(name));

for (const name of names) {
  const fn = variants[name];
  for (let i = 0; i < WARMUP; i++) check((await fn()) === true, `${name} did not get a success answer`);
}

// Interleaved at the finest grain: each step of a round is one request of every variant, in a fresh random order (so
// no variant always follows the same one), each bracketed by process.cpuUsage(). Calls are sequential, so a request's
// own work happens inside its bracket; work one variant leaves behind (a GC, a timer) lands on others at random.
// (Blocks of one variant at a time were tried: their ratios spread 3-5 times wider, load drifting between blocks.)
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
// Each request's CPU, per variant, for the round's statistics.
const samples = Object.fromEntries(names.map((name) => [name, new Float64Array(N)]));
/**
 * The mean of the samples without the costliest `TRIM` share of them. The tail is CPU that lands on a request but is
 * not its own at random: V8's background threads (concurrent marking, compilation, sweeping) run during whichever
 * bracket is open, and a request's body or socket finishes inside the next variant's bracket. On this machine the top
 * 2 % of raw fetch's requests held about a sixth of its mean, spread over the variants alike, which pulls every ratio
 * toward 1 and made the per-round ratio swing ±30 %; without it the ratio is steady (about ±3 % between quartiles).
 */
const trimmedMean = (values) => {
  const sorted = values.toSorted();
  const kept = sorted.length - Math.floor(sorted.length * TRIM);
  let sum = 0;
  for (let i = 0; i < kept; i++) sum += sorted[i];
  return sum / kept;
};
for (let round = 0; round < ROUNDS; round++) {
  globalThis.gc();
  const start = performance.now();
  for (let i = 0; i < N; i++) {
    for (const name of shuffle()) {
      const before = process.cpuUsage();
      await variants[name]();
      const used = process.cpuUsage(before);
      samples[name][i] = used.user + used.system;
    }
  }
  const result = Object.fromEntries(
    names.map((name) => {
      const values = samples[name];
      let sum = 0;
      for (const value of values) sum += value;
      return [name, { cpuUs: sum / N, trimmedUs: trimmedMean(values) }];
    }),
  );
  report({ round, result, wallMs: performance.now() - start });
}
