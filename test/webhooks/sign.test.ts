import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toHex } from '../../src/internal/hex.js';
import { loadNodeCrypto } from '../../src/webhooks/crypto-backend.js';
import { signWebhook, signWebhookAsync, verifyWebhook } from '../../src/webhooks/index.js';
import { hmacSha256WebCrypto } from '../../src/webhooks/web-crypto.js';

const bytes = (byte: number, length: number) => new Uint8Array(length).fill(byte);
const ascii = (text: string) => new TextEncoder().encode(text);
const range = (from: number, to: number) => Uint8Array.from({ length: to - from + 1 }, (_, i) => from + i);

// RFC 4231 section 4, HMAC-SHA-256 outputs. Case 5 is specified truncated to 128 bits.
const RFC4231 = [
  {
    name: 'case 1',
    key: bytes(0x0b, 20),
    data: ascii('Hi There'),
    mac: 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
  },
  {
    name: 'case 2',
    key: ascii('Jefe'),
    data: ascii('what do ya want for nothing?'),
    mac: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
  },
  {
    name: 'case 3',
    key: bytes(0xaa, 20),
    data: bytes(0xdd, 50),
    mac: '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe',
  },
  {
    name: 'case 4',
    key: range(0x01, 0x19),
    data: bytes(0xcd, 50),
    mac: '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b',
  },
  {
    name: 'case 5',
    key: bytes(0x0c, 20),
    data: ascii('Test With Truncation'),
    mac: 'a3b6167473100ee06e0c796c2955552b',
    truncated: true,
  },
  {
    name: 'case 6',
    key: bytes(0xaa, 131),
    data: ascii('Test Using Larger Than Block-Size Key - Hash Key First'),
    mac: '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
  },
  {
    name: 'case 7',
    key: bytes(0xaa, 131),
    data: ascii(
      'This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.',
    ),
    mac: '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
  },
];

// A key below 0x80 in every byte is the same bytes as a UTF-8 string, so the public string-keyed API applies.
const asciiKey = (key: Uint8Array) => (key.every((b) => b < 0x80) ? String.fromCharCode(...key) : undefined);

describe('HMAC-SHA256 against the RFC 4231 test vectors', () => {
  const nodeCrypto = loadNodeCrypto();

  it.each(RFC4231)('node:crypto and Web Crypto both give the $name output', async ({ key, data, mac }) => {
    const node = nodeCrypto?.createHmac('sha256', key).update(data).digest('hex');
    const web = toHex(await hmacSha256WebCrypto(key, data));
    // Case 5 publishes only the first 128 bits; the full digest must start with them.
    expect(node?.slice(0, mac.length)).toBe(mac);
    expect(web.slice(0, mac.length)).toBe(mac);
    expect(web).toBe(node);
  });

  it.each(RFC4231.filter((v) => asciiKey(v.key) !== undefined && !v.truncated))(
    'signWebhook and signWebhookAsync give the $name output with a string secret',
    async ({ key, data, mac }) => {
      const secret = asciiKey(key) ?? '';
      expect(signWebhook(data, secret)).toBe(mac);
      expect(await signWebhookAsync(data, secret)).toBe(mac);
    },
  );

  it.each(RFC4231.filter((v) => asciiKey(v.key) !== undefined && !v.truncated))(
    'verifyWebhook accepts the $name MAC as a signature on both crypto paths (then reads the non-JSON body as a payload error)',
    async ({ key, data, mac }) => {
      for (const crypto of ['node', 'webcrypto'] as const) {
        // A good signature gets past verification: the failure is about the payload, not the signature.
        await expect(verifyWebhook(data, mac, asciiKey(key) ?? '', { crypto })).rejects.toMatchObject({
          code: 'WEBHOOK_PAYLOAD_INVALID',
        });
      }
    },
  );

  it('refuses the truncated case 5 MAC as a malformed signature, since the service sends full 256-bit digests', async () => {
    const v = RFC4231[4];
    await expect(verifyWebhook(v?.data ?? '', v?.mac, asciiKey(v?.key ?? bytes(0, 1)) ?? '')).rejects.toMatchObject({
      code: 'WEBHOOK_VERIFICATION_FAILED',
      reason: 'malformed_signature',
    });
  });
});

const SAMPLES = [
  { body: '{"event_id":"1","event_type":"document","data":{}}', secret: 'whsec_abc' },
  { body: '{"product_name":"डाल चावल ₹ 🍚","qty":1.5}', secret: 'sécrét-ключ-密钥' },
  { body: '', secret: 's' },
  { body: ' \n\t{ "spaced" : true }\n', secret: 'a'.repeat(200) },
];

function openssl(body: string, secret: string): string {
  const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret], { input: body }).toString();
  return out.trim().split(/\s+/).pop() ?? '';
}

function python(body: string, secret: string): string {
  const script =
    'import hmac, hashlib, sys; print(hmac.new(sys.argv[1].encode(), sys.stdin.buffer.read(), hashlib.sha256).hexdigest())';
  return execFileSync('python3', ['-c', script, secret], { input: body }).toString().trim();
}

describe('signatures cross-checked against independent implementations', () => {
  it.each(SAMPLES)(
    'signWebhook matches `openssl dgst -sha256 -hmac` for a body of $body.length characters',
    ({ body, secret }) => {
      expect(signWebhook(body, secret)).toBe(openssl(body, secret));
    },
  );

  it.each(SAMPLES)(
    'signWebhookAsync matches Python hmac for a body of $body.length characters',
    async ({ body, secret }) => {
      expect(await signWebhookAsync(body, secret)).toBe(python(body, secret));
    },
  );

  it('verifyWebhook accepts a signature made by openssl, on both crypto paths', async () => {
    const body = JSON.stringify({ event_id: 'x-1', event_type: 'future', data: { n: 1 } });
    const signature = openssl(body, 'whsec_openssl');
    for (const crypto of ['node', 'webcrypto'] as const) {
      await expect(verifyWebhook(body, signature, 'whsec_openssl', { crypto })).resolves.toMatchObject({
        event_id: 'x-1',
      });
    }
  });
});

describe('signWebhook where node:crypto is absent', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('throws an error that points to signWebhookAsync', async () => {
    vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    vi.resetModules();
    const fresh = await import('../../src/webhooks/sign.js');
    expect(() => fresh.signWebhook('{}', 'whsec_x')).toThrow(/signWebhookAsync/);
    expect(await fresh.signWebhookAsync('{}', 'whsec_x')).toBe(python('{}', 'whsec_x'));
  });
});
