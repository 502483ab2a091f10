// Measures the client-side throttle: start gaps between requests of one key, fired all at once.
// Run: npm run bench:throttle   (builds first; prints figures; not part of npm test)
import { ServiceClient } from '../dist/index.js';
import { buildEwayBillModel } from '../dist/testing.js';

const KEYS = Number(process.env.KEYS ?? 10);
const CALLS = Number(process.env.CALLS ?? 8);
const model = buildEwayBillModel();

const starts = new Map();
const fetch = async (input, init) => {
  const request = new Request(input, init);
  const key = request.headers.get('authorization');
  if (!starts.has(key)) starts.set(key, []);
  starts.get(key).push(performance.now());
  return Response.json({ success: true, message: 'ok' });
};

const t0 = performance.now();
await Promise.all(
  Array.from({ length: KEYS }, (_, k) => {
    const client = new ServiceClient({ apiKey: `bench-key-${k}`, baseUrl: 'https://bench.test/api/partner', fetch });
    return Promise.all(Array.from({ length: CALLS }, (_, i) => client.createEwayBill(`doc-${i}`, model)));
  }),
);
const wall = performance.now() - t0;
const allGaps = [...starts.values()].flatMap((s) => s.slice(1).map((t, i) => t - s[i]));
allGaps.sort((a, b) => a - b);
const pct = (p) => allGaps[Math.min(allGaps.length - 1, Math.floor((p / 100) * allGaps.length))];
console.log(`throttle: ${KEYS} keys x ${CALLS} calls fired at once, ${allGaps.length} gaps`);
console.log(
  `  gap min ${allGaps[0].toFixed(1)} ms, p50 ${pct(50).toFixed(1)} ms, p99 ${pct(99).toFixed(1)} ms, max ${allGaps.at(-1).toFixed(1)} ms`,
);
console.log(`  gaps below 1000 ms: ${allGaps.filter((g) => g < 1000).length}`);
console.log(`  wall ${(wall / 1000).toFixed(2)} s (ideal ${(CALLS - 1).toFixed(0)} s)`);
