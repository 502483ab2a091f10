// Webhook verification throughput on a 1 KB body, both crypto paths against a bare HMAC, in one run.
// Run: npm run bench:webhooks   (builds dist/ first). Seconds per case: BENCH_SECONDS (default 2).
// The cases run interleaved in ROUNDS short rounds and each reports its median round, so a burst of load on a
// shared machine skews one round of every case rather than one whole case.
import { createHmac } from 'node:crypto';
import { signWebhook, verifyWebhook, verifyWebhookSignature } from '../dist/index.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const WARMUP_MS = 300;
const ROUNDS = 5;
const BATCH = 200;
const WIDTH = 58;

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
const text = JSON.stringify(event);
const body = Buffer.from(text);
if (body.length !== 1024) throw new Error(`body is ${body.length} bytes, expected 1024`);
const signature = signWebhook(body, secret);

const subtle = globalThis.crypto.subtle;
const encoder = new TextEncoder();
const key = await subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);

// Sanity: every case must agree before it is timed.
const check = await verifyWebhook(body, signature, secret, { crypto: 'webcrypto' });
if (check.event_id !== event.event_id) throw new Error('verification failed');
if (createHmac('sha256', secret).update(body).digest('hex') !== signature) throw new Error('HMAC mismatch');

/** Runs `fn` in batches for `ms` milliseconds; returns operations per second. */
async function measure(fn, ms) {
  let ops = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < BATCH; i++) await fn();
    ops += BATCH;
    elapsed = performance.now() - start;
  }
  return (ops / elapsed) * 1000;
}

const cases = {
  'bare node:crypto HMAC (createHmac + digest hex)': () => createHmac('sha256', secret).update(body).digest('hex'),
  'verifyWebhookSignature, node path': () => verifyWebhookSignature(body, signature, secret, { crypto: 'node' }),
  'verifyWebhook, node path': () => verifyWebhook(body, signature, secret, { crypto: 'node' }),
  'bare Web Crypto HMAC (subtle.sign, key imported once)': () => subtle.sign('HMAC', key, body),
  'bare Web Crypto HMAC (importKey + sign each time)': async () => {
    const k = await subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return subtle.sign('HMAC', k, body);
  },
  'verifyWebhookSignature, Web Crypto path': () =>
    verifyWebhookSignature(body, signature, secret, { crypto: 'webcrypto' }),
  'verifyWebhook, Web Crypto path': () => verifyWebhook(body, signature, secret, { crypto: 'webcrypto' }),
};

console.log(
  `node ${process.version}, ${body.length}-byte body, ${SECONDS} s per case in ${ROUNDS} interleaved rounds\n`,
);
const rounds = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (const fn of Object.values(cases)) await measure(fn, WARMUP_MS);
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, fn] of Object.entries(cases)) rounds[name].push(await measure(fn, (SECONDS * 1000) / ROUNDS));
}
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const results = {};
for (const [name, values] of Object.entries(rounds)) {
  const sorted = values.toSorted((a, b) => a - b);
  results[name] = sorted[Math.floor(sorted.length / 2)];
  const spread = `median; rounds ${fmt(sorted[0])} to ${fmt(sorted.at(-1))}`;
  console.log(`${name.padEnd(WIDTH)} ${fmt(results[name]).padStart(10)} ops/s  (${spread})`);
}

const ratio = (verify, bare) => {
  const r = results[verify] / results[bare];
  const overheadUs = (1e6 / results[verify] - 1e6 / results[bare]).toFixed(2);
  return `${r.toFixed(2)} (${overheadUs >= 0 ? '+' : ''}${overheadUs} µs per event)`;
};
const NODE_BARE = 'bare node:crypto HMAC (createHmac + digest hex)';
const WEB_BARE = 'bare Web Crypto HMAC (subtle.sign, key imported once)';
console.log('\nverify / bare HMAC (1.00 = no overhead; the check = HMAC + header parse + constant-time compare;');
console.log('verifyWebhook adds UTF-8 decoding, JSON.parse and the zod envelope validation):');
console.log(`  node path,       signature check: ${ratio('verifyWebhookSignature, node path', NODE_BARE)}`);
console.log(`  node path,       verifyWebhook:   ${ratio('verifyWebhook, node path', NODE_BARE)}`);
console.log(`  Web Crypto path, signature check: ${ratio('verifyWebhookSignature, Web Crypto path', WEB_BARE)}`);
console.log(`  Web Crypto path, verifyWebhook:   ${ratio('verifyWebhook, Web Crypto path', WEB_BARE)}`);
const speedup = results['verifyWebhook, node path'] / results['verifyWebhook, Web Crypto path'];
console.log(`verifyWebhook, node path vs Web Crypto path: ${speedup.toFixed(1)}x`);
