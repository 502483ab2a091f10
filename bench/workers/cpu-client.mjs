// Client CPU per request: N sequential loopback POSTs per variant per round, the variants interleaved in each round
// (the order rotates), CPU of this process only (the server is another process). Prints one JSON line per round.
import ky from 'ky';
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
const sdkOff = new ServiceClient({ apiKey, baseUrl, rateLimiter: noWaitLimiter, preflight: 'off' });
const sdkDefault = new ServiceClient({ apiKey, baseUrl, rateLimiter: noWaitLimiter });

const variants = {
  fetch: async () => {
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(model) });
    return (await response.json()).success;
  },
  ky: async () => (await api.post(url, { json: model }).json()).success,
  'sdk-preflight-off': async () => (await sdkOff.createEwayBill('doc-1', model)).success,
  'sdk-default': async () => (await sdkDefault.createEwayBill('doc-1', model)).success,
};
const names = Object.keys(variants);

for (const [name, fn] of Object.entries(variants)) {
  for (let i = 0; i < WARMUP; i++) check((await fn()) === true, `${name} did not get a success answer`);
}

for (let round = 0; round < ROUNDS; round++) {
  const result = {};
  for (let v = 0; v < names.length; v++) {
    const name = names[(v + round) % names.length];
    const fn = variants[name];
    globalThis.gc();
    const cpu = process.cpuUsage();
    const start = performance.now();
    for (let i = 0; i < N; i++) await fn();
    const used = process.cpuUsage(cpu);
    result[name] = {
      cpuUs: (used.user + used.system) / N,
      wallUs: ((performance.now() - start) * 1000) / N,
    };
  }
  report({ round, result });
}
