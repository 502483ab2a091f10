// Webhook verification throughput on a 1 KB body, against the bare work any receiver must do, in one run.
// Run: npm run bench:webhooks   (builds dist/ first). Seconds per case: BENCH_SECONDS (default 3); rounds: BENCH_ROUNDS.
// The cases run interleaved in short rounds (their order alternating), and each ratio is taken per round, so a burst of
// load on a shared machine skews one round of both sides rather than one whole case. Prints the median ratio and its
// min–max over the rounds. Figures are operations per second of CPU time. Goal (issue 13): verifyWebhook >= 0.9x the bare createHmac + timingSafeEqual + JSON.parse.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { signWebhook, verifyWebhook, verifyWebhookSignature } from '../dist/webhooks.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 21);
const WARMUP_MS = 300;
const BATCH = 200;

const secret = 'whsec_bench_0123456789abcdef';
const event = {
  event_id: '5d9c2e7a-8b1f-4c3d-a2e6-0f9b8a7c6d5e',
  event_type: 'inventory',
  data: {
    service_product_id: 1234,
    partner_product_id: 'SKU-1234',
    product_name: '',
    qty: 12.5,
    movement: 'out',
    timestamp: '2026-11-21 10:31:07.000001',
  },
};
event.data.product_name = 'x'.repeat(1024 - JSON.stringify(event).length);
const body = Buffer.from(JSON.stringify(event));
if (body.length !== 1024) throw new Error(`body is ${body.length} bytes, expected 1024`);
const signature = signWebhook(body, secret);

const subtle = globalThis.crypto.subtle;
const key = await subtle.importKey('raw', Buffer.from(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);

/** The least a receiver must do: HMAC the body, compare in constant time with the header's bytes, parse the JSON. */
function bareVerify() {
  const received = Buffer.from(signature, 'hex');
  const expected = createHmac('sha256', secret).update(body).digest();
  if (received.length !== expected.length || !timingSafeEqual(expected, received)) throw new Error('mismatch');
  return JSON.parse(body.toString('utf8'));
}
function bareSignature() {
  const expected = createHmac('sha256', secret).update(body).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) throw new Error('mismatch');
}
async function bareWebCrypto() {
  if (!(await subtle.verify('HMAC', key, Buffer.from(signature, 'hex'), body))) throw new Error('mismatch');
  return JSON.parse(body.toString('utf8'));
}

// Sanity: every case must agree before it is timed.
const check = await verifyWebhook(body, signature, secret, { crypto: 'webcrypto' });
if (check.known !== true || check.event_id !== bareVerify().event_id) throw new Error('verification disagrees');

/**
 * Runs `fn` in batches for `ms` milliseconds of wall time; returns operations per second of this process's CPU time
 * (user + system), so time the machine gives to other processes does not count against either side.
 */
async function measure(fn, ms) {
  let ops = 0;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  while (performance.now() - start < ms) {
    for (let i = 0; i < BATCH; i++) await fn();
    ops += BATCH;
  }
  const cpu = process.cpuUsage(cpuStart);
  return (ops / (cpu.user + cpu.system)) * 1e6;
}

// Each pair: [SDK case, bare reference]; both sides are awaited the same way.
const pairs = [
  [
    'verifyWebhook, node path  /  createHmac + timingSafeEqual + JSON.parse',
    () => verifyWebhook(body, signature, secret),
    bareVerify,
  ],
  [
    'verifyWebhookSignature, node path  /  createHmac + timingSafeEqual',
    () => verifyWebhookSignature(body, signature, secret),
    bareSignature,
  ],
  [
    'verifyWebhook, Web Crypto path  /  subtle.verify + JSON.parse',
    () => verifyWebhook(body, signature, secret, { crypto: 'webcrypto' }),
    bareWebCrypto,
  ],
];

const sliceMs = Math.round((SECONDS * 1000) / ROUNDS);
console.log(
  `node ${process.version}, ${body.length}-byte body, ${ROUNDS} interleaved rounds of ${sliceMs} ms per side\n`,
);
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
for (const [name, sdk, bare] of pairs) {
  await measure(sdk, WARMUP_MS);
  await measure(bare, WARMUP_MS);
  const ratios = [];
  const sdkOps = [];
  const bareOps = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which side goes first, so neither always runs on a warmer or cooler machine.
    const first = round % 2 === 0;
    const a = await measure(first ? sdk : bare, sliceMs);
    const b = await measure(first ? bare : sdk, sliceMs);
    const [s, r] = first ? [a, b] : [b, a];
    sdkOps.push(s);
    bareOps.push(r);
    ratios.push(s / r);
  }
  const sorted = ratios.toSorted((x, y) => x - y);
  console.log(name);
  console.log(
    `  SDK  ${fmt(median(sdkOps)).padStart(9)} ops/CPU-s (median; ${fmt(Math.min(...sdkOps))}–${fmt(Math.max(...sdkOps))})`,
  );
  console.log(
    `  bare ${fmt(median(bareOps)).padStart(9)} ops/CPU-s (median; ${fmt(Math.min(...bareOps))}–${fmt(Math.max(...bareOps))})`,
  );
  console.log(
    `  ratio ${median(ratios).toFixed(2)}x (per-round min–max ${sorted[0].toFixed(2)}–${sorted.at(-1).toFixed(2)})\n`,
  );
}
