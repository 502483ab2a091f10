// Load: 200 keys x 5 calls fired at once through ServiceClient against the local mock server, which runs in its own
// process on 127.0.0.1 (as the real service would: its clock and event loop are not the client's).
// Proves: every promise settles, the server sees zero 429s, each key's calls are >= 1000 ms apart, wall time near 4 s.
// Run: npm run bench:load   (builds first; prints figures; not part of npm test)
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createProcessRateLimiter, ServiceClient } from '../dist/index.js';
import { buildEwayBillModel } from '../dist/testing.js';

const KEYS = Number(process.env.KEYS ?? 200);
const CALLS = Number(process.env.CALLS ?? 5);
const DEADLINE_MS = 60_000;
// RETRIES=2 runs with the client default (429s are retried); 0 shows every 429 as a failure.
// The default spaces each key's requests from the moment each was written; SPACING=answer measures the 0.1 policy
// (waitForAnswer: true), which also waits for the previous answer.
const SPACING = process.env.SPACING === 'answer' ? 'answer' : 'start';
const rateLimiter = SPACING === 'answer' ? createProcessRateLimiter({ waitForAnswer: true }) : undefined;

const child = fork(new URL('./load-server.mjs', import.meta.url), { env: { ...process.env, KEYS, CALLS } });
const [ready] = await once(child, 'message');
const { url, keys, documents } = ready;
const clientStarts = keys.map(() => []);
const model = buildEwayBillModel();

const t0 = performance.now();
const jobs = keys.flatMap((apiKey, k) => {
  const timedFetch = (input, init) => {
    clientStarts[k].push(performance.now());
    return fetch(input, init);
  };
  // maxRetries 0: a 429 surfaces as an error instead of being hidden by a retry.
  const client = new ServiceClient({
    apiKey,
    baseUrl: url,
    fetch: timedFetch,
    maxRetries: Number(process.env.RETRIES ?? 0),
    timeout: 20_000,
    rateLimiter,
  });
  return Array.from({ length: CALLS }, (_, i) =>
    client.createEwayBill(documents[k * CALLS + i], model, { signal: AbortSignal.timeout(DEADLINE_MS) }),
  );
});
const results = await Promise.allSettled(jobs);
const wall = performance.now() - t0;
child.send({ type: 'report' });
const [report] = await once(child, 'message');

const fulfilled = results.filter((r) => r.status === 'fulfilled').length;
const rejected = results.filter((r) => r.status === 'rejected');
const gapsOf = (times) => times.slice(1).map((t, i) => t - times[i]);
const serverGaps = report.arrivals.flatMap(gapsOf);
const clientGaps = clientStarts.flatMap(gapsOf);
const stat = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return `min ${s[0].toFixed(1)} ms, p50 ${s[Math.floor(s.length / 2)].toFixed(1)} ms, max ${s.at(-1).toFixed(1)} ms`;
};
console.log(
  `load: ${KEYS} keys x ${CALLS} calls = ${jobs.length} calls fired at once, spacing from the ${SPACING} (Node ${process.versions.node})`,
);
console.log(`  settled ${results.length}/${jobs.length}: ${fulfilled} fulfilled, ${rejected.length} rejected`);
for (const r of rejected.slice(0, 3))
  console.log(`    rejected: ${r.reason?.code ?? r.reason?.name}: ${r.reason?.message}`);
console.log(`  server statuses: ${JSON.stringify(report.statuses)}; 429s: ${report.statuses[429] ?? 0}`);
console.log(
  `  per-key gaps at the client (fetch called): ${stat(clientGaps)}; below 1000 ms: ${clientGaps.filter((g) => g < 1000).length}`,
);
console.log(
  `  per-key gaps at the server (arrival):      ${stat(serverGaps)}; below 1000 ms: ${serverGaps.filter((g) => g < 1000).length}`,
);
console.log(`  wall ${(wall / 1000).toFixed(2)} s (ideal ${CALLS - 1} s)`);
if (results.length !== jobs.length || rejected.length > 0 || (report.statuses[429] ?? 0) > 0) process.exitCode = 1;
