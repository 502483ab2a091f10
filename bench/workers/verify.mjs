// verifyWebhook on a 1 KB body against the bare work it must do (createHmac + timingSafeEqual + JSON.parse), in CPU
// operations per second, interleaved in ROUNDS rounds of ROUND_MS each; with the same against verifyWebhookSignature
// (no parse) and the Web Crypto path (subtle.verify + JSON.parse). CASES (comma-separated names of `cases` below) picks
// which run in this process; default the goal's pair. Prints one JSON line per round.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { signWebhook, verifyWebhook, verifyWebhookSignature } from '../../dist/webhooks.js';
import { check, report } from './fixture.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const ROUND_MS = Number(process.env.ROUND_MS ?? 400);
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
check(body.length === 1024, `body is ${body.length} bytes, expected 1024`);
const signature = signWebhook(body, secret);

const subtle = globalThis.crypto.subtle;
const key = await subtle.importKey('raw', Buffer.from(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);

/** The least a receiver must do: HMAC the body, compare in constant time with the header's bytes (then parse). */
function bareSignature() {
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new Error('bad signature');
}

// Each SDK case and its bare reference; every case is awaited the same way.
const cases = {
  bare: async () => {
    bareSignature();
    return JSON.parse(body.toString('utf8'));
  },
  verifyWebhook: () => verifyWebhook(body, signature, secret),
  bareSignature: async () => bareSignature(),
  verifyWebhookSignature: () => verifyWebhookSignature(body, signature, secret),
  bareWebCrypto: async () => {
    if (!(await subtle.verify('HMAC', key, Buffer.from(signature, 'hex'), body))) throw new Error('bad signature');
    return JSON.parse(body.toString('utf8'));
  },
  verifyWebhookWebCrypto: () => verifyWebhook(body, signature, secret, { crypto: 'webcrypto' }),
};
const selected = (process.env.CASES ?? 'bare,verifyWebhook').split(',');
check(
  selected.every((name) => Object.hasOwn(cases, name)),
  `CASES names an unknown case: ${process.env.CASES}`,
);
for (const name of selected) {
  const result = await cases[name]();
  check(result === undefined || result.event_id === event.event_id, `${name} did not return the event`);
}

/** Runs `fn` in batches until `ms` of this process's CPU time is spent; returns operations per CPU second. */
async function measure(fn, ms) {
  let ops = 0;
  const start = process.cpuUsage();
  let usedUs = 0;
  while (usedUs < ms * 1000) {
    for (let i = 0; i < BATCH; i++) await fn();
    ops += BATCH;
    const used = process.cpuUsage(start);
    usedUs = used.user + used.system;
  }
  return ops / (usedUs / 1e6);
}

const names = selected;
for (const name of names) await measure(cases[name], 200);
for (let round = 0; round < ROUNDS; round++) {
  const result = {};
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + round) % names.length];
    globalThis.gc();
    result[name] = await measure(cases[name], ROUND_MS);
  }
  report({ round, result });
}
