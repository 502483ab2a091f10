// Batch: createEwayBills over 5 keys x 10 documents (50 e-way bills) with the real limit of 1 request per second per
// key, against the local mock server in its own process (bench/load-server.mjs). Prints the wall time against the
// ideal (10 calls per key at 1 per second: 10 s; the last call can start at 9 s), the first ETA and the per-key gaps.
// Run: npm run bench:batch   (builds first; prints figures; not part of npm test)
import { fork } from 'node:child_process';
import { once } from 'node:events';
import * as sdk from '../dist/index.js';
import { buildEwayBillModel } from '../dist/testing.js';

const KEYS = Number(process.env.KEYS ?? 5);
const CALLS = Number(process.env.CALLS ?? 10);
const { ServiceClient } = sdk;
// Until src/index.ts exports it, the bench takes createEwayBills from a bundle of src/client/batch.ts.
const createEwayBills = sdk.createEwayBills ?? (await loadFromSource());

async function loadFromSource() {
  const { build } = await import('tsup');
  const { mkdirSync, mkdtempSync } = await import('node:fs');
  mkdirSync('.tmp', { recursive: true });
  const outDir = mkdtempSync('.tmp/bench-batch-');
  await build({ config: false, entry: { batch: 'src/client/batch.ts' }, outDir, format: 'esm', silent: true });
  return (await import(new URL(`../${outDir}/batch.js`, import.meta.url))).createEwayBills;
}

const child = fork(new URL('./load-server.mjs', import.meta.url), { env: { ...process.env, KEYS, CALLS } });
const [ready] = await once(child, 'message');
const { url, keys, documents } = ready;
// Each client counted: how many createEwayBill calls the batch has under way at once (the batch starts none ahead).
let inFlight = 0;
let mostInFlight = 0;
const counted = (client) => ({
  createEwayBill: (...args) => {
    mostInFlight = Math.max(mostInFlight, ++inFlight);
    return client.createEwayBill(...args).finally(() => inFlight--);
  },
});
const clients = Object.fromEntries(
  keys.map((apiKey, k) => [`company_${k + 1}`, counted(new ServiceClient({ apiKey, baseUrl: url }))]),
);
const model = buildEwayBillModel();
const items = documents.map((docHashId, i) => ({ client: `company_${Math.floor(i / CALLS) + 1}`, docHashId, model }));

const progress = [];
const t0 = performance.now();
const results = await createEwayBills(clients, items, {
  onProgress: (p) => progress.push({ ...p, at: performance.now() - t0 }),
});
const wall = performance.now() - t0;
child.send({ type: 'report' });
const [report] = await once(child, 'message');

const fulfilled = results.filter((r) => r.status === 'fulfilled').length;
const gaps = report.arrivals.flatMap((times) => times.slice(1).map((t, i) => t - times[i]));
const sorted = [...gaps].sort((a, b) => a - b);
const mid = progress[Math.floor(progress.length / 2)];
console.log(
  `batch: ${items.length} documents over ${KEYS} keys (${CALLS} each), limit 1/s per key (Node ${process.versions.node})`,
);
console.log(
  `  settled ${results.length}/${items.length}: ${fulfilled} fulfilled; server statuses ${JSON.stringify(report.statuses)}`,
);
console.log(
  `  wall ${(wall / 1000).toFixed(2)} s; ideal ${CALLS} s (${CALLS} calls per key at 1/s), lower bound ${CALLS - 1} s + one round trip`,
);
console.log(
  `  overhead vs ${CALLS} s: ${(((wall - CALLS * 1000) / (CALLS * 1000)) * 100).toFixed(1)}%; vs ${CALLS - 1} s: ${(wall / 1000 - (CALLS - 1)).toFixed(2)} s`,
);
console.log(
  `  first ETA ${(progress[0].etaMs / 1000).toFixed(1)} s; at ${mid.done}/${mid.total} (t=${(mid.at / 1000).toFixed(2)} s) ETA ${(mid.etaMs / 1000).toFixed(2)} s, actual ${((wall - mid.at) / 1000).toFixed(2)} s`,
);
console.log(
  `  per-key gaps at the server: min ${sorted[0].toFixed(1)} ms, p50 ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, max ${sorted.at(-1).toFixed(1)} ms`,
);
console.log(
  `  most createEwayBill calls under way at once: ${mostInFlight} (for ${items.length} items over ${KEYS} keys)`,
);
if (fulfilled !== items.length) process.exitCode = 1;
