import { fork } from 'node:child_process';
// An A/A/B check of the cpu measure's two SDK rows: three clients of one key against the loopback server (its own
// process), one with preflight 'off' and two with the default 'warn', taking turns request by request, each request
// bracketed by process.cpuUsage(). If the two default clients differ as much as default and 'off' do, the gap in
// the cpu row is noise. Also prints what preflightEwayBill itself costs per call. Run: npx node bench/workers/preflight-aa.mjs
// (after npm run build).
import { preflightEwayBill } from '../../dist/gst.js';
import { ServiceClient } from '../../dist/index.js';
import { model, noWaitLimiter } from './fixture.mjs';

const server = fork(new URL('./server.mjs', import.meta.url), { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
const port = await new Promise((r) => server.stdout.once('data', (d) => r(JSON.parse(String(d)).port)));
const baseUrl = `http://127.0.0.1:${port}/api/partner`;
const apiKey = 'bench_cpu_key_0123456789';
const v = {
  off: new ServiceClient({ apiKey, baseUrl, rateLimiter: noWaitLimiter, preflight: 'off' }),
  warn: new ServiceClient({ apiKey, baseUrl, rateLimiter: noWaitLimiter }),
  warn2: new ServiceClient({ apiKey, baseUrl, rateLimiter: noWaitLimiter }),
};
for (const c of Object.values(v)) for (let i = 0; i < 300; i++) await c.createEwayBill('doc-1', model);
const cpu = { off: 0, warn: 0, warn2: 0 };
const names = Object.keys(v);
for (let i = 0; i < 3000; i++)
  for (const n of i % 2 ? names : [...names].reverse()) {
    const t = process.cpuUsage();
    await v[n].createEwayBill('doc-1', model);
    const u = process.cpuUsage(t);
    cpu[n] += u.user + u.system;
  }
for (const n of names)
  console.log(
    `client CPU per request, preflight ${n.replace('2', ' (second client)')}: ${(cpu[n] / 3000).toFixed(0)} µs`,
  );
const before = process.cpuUsage();
for (let i = 0; i < 30_000; i++) preflightEwayBill(model, { docHashId: 'doc-1' });
const used = process.cpuUsage(before);
console.log(`preflightEwayBill alone: ${((used.user + used.system) / 30_000).toFixed(1)} µs per call`);
server.kill();
process.exit(0);
