// The per-call savings of verifyWebhook (issue 13) keep every check: the cached per-secret KeyObject gives the same
// HMAC as the secret string, the cache stays small and never shows a secret, the node path's shared header buffer
// cannot leak into a Web Crypto check that is still pending, and the header decoding accepts exactly 64 hex digits.
import { inspect } from 'node:util';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  signWebhook,
  verifyWebhook,
  verifyWebhookSignature,
  WebhookVerificationError,
} from '../../src/webhooks/index.js';
import { nodeSecretKeys, SecretKeyCache } from '../../src/webhooks/secret-keys.js';
import { parseSignatureHeader } from '../../src/webhooks/signature.js';
import { DOCUMENT_EVENT, INVENTORY_EVENT, SECRET, signed } from './fixtures.js';

afterEach(() => nodeSecretKeys.clear());

/** The reason a signature check was refused, or 'verified'. */
async function reason(body: Uint8Array | string, signature: string, secret: string | string[]): Promise<string> {
  try {
    await verifyWebhookSignature(body, signature, secret, { crypto: 'node' });
    return 'verified';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}

describe('the per-secret KeyObject cache of the node path', () => {
  it('derives a key only for a secret that comes again, and then keeps verifying with it', async () => {
    const { body, signature } = signed(DOCUMENT_EVENT);
    expect(await reason(body, signature, SECRET)).toBe('verified');
    expect(nodeSecretKeys.size).toBe(0); // first sight: the string is used as it is
    expect(await reason(body, signature, SECRET)).toBe('verified');
    expect(nodeSecretKeys.size).toBe(1); // second sight: a KeyObject is made and used
    for (let i = 0; i < 3; i++) expect(await reason(body, signature, SECRET)).toBe('verified');
    expect(nodeSecretKeys.size).toBe(1);
  });

  it('still refuses another secret and a wrong signature once the secret is cached', async () => {
    const { body, signature } = signed(INVENTORY_EVENT);
    for (let i = 0; i < 3; i++) await verifyWebhook(body, signature, SECRET);
    expect(nodeSecretKeys.size).toBe(1);
    for (let i = 0; i < 3; i++) {
      expect(await reason(body, signature, `${SECRET}x`)).toBe('signature_mismatch');
      expect(await reason(body, signature, SECRET.slice(0, -1))).toBe('signature_mismatch');
      expect(await reason(body, signWebhook(body, 'other'), SECRET)).toBe('signature_mismatch');
      expect(await reason(`${body} `, signature, SECRET)).toBe('signature_mismatch');
    }
  });

  it('gives the HMAC of the secret string for any secret (any UTF-16, lone surrogates too) and body', async () => {
    const secret = fc.string({ minLength: 1, maxLength: 80, unit: 'binary' });
    const body = fc.uint8Array({ minLength: 0, maxLength: 300 });
    await fc.assert(
      fc.asyncProperty(secret, body, async (key, data) => {
        // signWebhook keys createHmac with the string; three checks make the third one use the cached KeyObject.
        const signature = signWebhook(data, key);
        const other = signWebhook(data, `${key}!`);
        for (let i = 0; i < 3; i++) {
          expect(await reason(data, signature, key)).toBe('verified');
          expect(await reason(data, other, key)).toBe('signature_mismatch');
        }
        expect(nodeSecretKeys.get(key)).toBeDefined();
      }),
      { numRuns: 50 },
    );
  });

  it('verifies both secrets of a rotation from the cache', async () => {
    const newSecret = 'whsec_new_rotation_0001';
    const { body, signature: oldSignature } = signed(DOCUMENT_EVENT);
    const newSignature = signWebhook(body, newSecret);
    for (let i = 0; i < 3; i++) {
      expect(await reason(body, oldSignature, [newSecret, SECRET])).toBe('verified');
      expect(await reason(body, newSignature, [newSecret, SECRET])).toBe('verified');
      expect(await reason(body, signWebhook(body, 'neither'), [newSecret, SECRET])).toBe('signature_mismatch');
    }
    expect(nodeSecretKeys.size).toBe(2);
  });

  it('holds at most 8 secrets, and makes no key at all for a receiver cycling through more secrets than that', async () => {
    const { body } = signed(DOCUMENT_EVENT);
    const secrets = Array.from({ length: 20 }, (_, i) => `whsec_tenant_${i}`);
    const signatures = secrets.map((secret) => signWebhook(body, secret));
    for (let round = 0; round < 5; round++) {
      for (const [i, secret] of secrets.entries()) {
        expect(await reason(body, signatures[i] as string, secret)).toBe('verified');
      }
    }
    expect(nodeSecretKeys.size).toBe(0);
    // Ten secrets, each used several times in a row: each is admitted, and the oldest go first.
    for (const [i, secret] of secrets.slice(0, 10).entries()) {
      for (let n = 0; n < 3; n++) expect(await reason(body, signatures[i] as string, secret)).toBe('verified');
    }
    expect(nodeSecretKeys.size).toBe(8);
    expect(nodeSecretKeys.get(secrets[0] as string)).toBeUndefined();
    expect(nodeSecretKeys.get(secrets[9] as string)).toBeDefined();
  });

  it('never shows a secret through inspect, JSON or its keys', async () => {
    const { body, signature } = signed(DOCUMENT_EVENT);
    for (let i = 0; i < 3; i++) await verifyWebhook(body, signature, SECRET);
    expect(nodeSecretKeys.size).toBe(1);
    const shown = [
      inspect(nodeSecretKeys, { showHidden: true, depth: 10 }),
      JSON.stringify(nodeSecretKeys),
      inspect(nodeSecretKeys.get(SECRET), { showHidden: true, depth: 10 }),
      String(Object.keys(nodeSecretKeys)),
    ].join('\n');
    expect(shown).not.toContain(SECRET);
    expect(shown).not.toContain(SECRET.slice(5, 20));
  });

  it('admits at once when asked to (the Web Crypto cache), and evicts the oldest when full', () => {
    const cache = new SecretKeyCache<number>(2, false);
    expect(cache.admit('a')).toBe(true);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.size]).toEqual([undefined, 2, 3, 2]);
    cache.delete('b', 99); // not its key: kept
    expect(cache.get('b')).toBe(2);
    cache.delete('b', 2);
    expect(cache.get('b')).toBeUndefined();
  });
});

describe('the X-Signature header bytes', () => {
  it('are read from exactly 64 hex digits of either case, as Buffer.from(hex) reads them', () => {
    const hexDigit = fc.constantFrom(...'0123456789abcdefABCDEF');
    fc.assert(
      fc.property(fc.string({ unit: hexDigit, minLength: 64, maxLength: 64 }), (hex) => {
        expect(Buffer.from(parseSignatureHeader(hex))).toEqual(Buffer.from(hex, 'hex'));
      }),
      { numRuns: 300 },
    );
  });

  it('refuse any 64-character header with a character that is not a hex digit, whatever its code', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 0, max: 0xffff })
          .map((code) => String.fromCharCode(code))
          .filter((c) => !/^[0-9a-fA-F]$/.test(c)),
        fc.nat({ max: 63 }),
        (bad, at) => {
          const header = `${'a'.repeat(at)}${bad}${'b'.repeat(63 - at)}`;
          expect(() => parseSignatureHeader(header)).toThrow(
            expect.objectContaining({ reason: 'malformed_signature' }),
          );
        },
      ),
      { numRuns: 500 },
    );
    // Codes whose low 7 bits are a hex digit must not pass as one.
    for (const code of [0x130, 0x141, 0x161, 0x1b0, 0xff10]) {
      const header = `${String.fromCharCode(code)}${'a'.repeat(63)}`;
      expect(() => parseSignatureHeader(header)).toThrow(expect.objectContaining({ reason: 'malformed_signature' }));
    }
  });

  it('of one node-path check never reach a Web Crypto check still pending', async () => {
    const { body, signature } = signed(DOCUMENT_EVENT);
    const pending = verifyWebhook(body, signature, SECRET, { crypto: 'webcrypto' });
    // Node-path checks run synchronously in between, each writing other header bytes into the node path's buffer.
    for (const other of ['0'.repeat(64), 'f'.repeat(64), signWebhook(body, 'other')]) {
      await expect(verifyWebhook(body, other, SECRET, { crypto: 'node' })).rejects.toMatchObject({
        reason: 'signature_mismatch',
      });
    }
    await expect(pending).resolves.toMatchObject({ event_id: DOCUMENT_EVENT.event_id });
    const wrong = verifyWebhook(body, '0'.repeat(64), SECRET, { crypto: 'webcrypto' });
    await verifyWebhook(body, signature, SECRET, { crypto: 'node' });
    await expect(wrong).rejects.toMatchObject({ reason: 'signature_mismatch' });
  });
});

describe('event shape checks after the savings', () => {
  it('give each unrecognised event its own issues list, and a known event none', async () => {
    const unknownType = { event_id: 'e-1', event_type: 'payment', data: {} };
    const a = await verifyWebhook(signed(unknownType).body, signed(unknownType).signature, SECRET);
    const b = await verifyWebhook(signed(unknownType).body, signed(unknownType).signature, SECRET);
    if (a.known || b.known) throw new Error('expected unknown events');
    expect(a.issues).toEqual([]);
    expect(a.issues).not.toBe(b.issues);
    expect(Object.isFrozen(a.issues)).toBe(false);
    const known = await verifyWebhook(signed(INVENTORY_EVENT).body, signed(INVENTORY_EVENT).signature, SECRET);
    expect(known).toEqual({ known: true, ...INVENTORY_EVENT });
    expect(Object.hasOwn(known, 'issues')).toBe(false);
  });

  it('list every field of a drifted inventory event, each once, in the table order', async () => {
    const drifted = {
      ...INVENTORY_EVENT,
      data: { ...INVENTORY_EVENT.data, service_product_id: 1.5, qty: 'many', movement: 'sideways', extra: 1 },
    };
    const event = await verifyWebhook(signed(drifted).body, signed(drifted).signature, SECRET);
    if (event.known) throw new Error('expected an unrecognised event');
    expect(event.received_event_type).toBe('inventory');
    expect(event.data).toEqual(drifted.data);
    expect(event.issues.map((issue) => issue.field)).toEqual(['data.service_product_id', 'data.qty', 'data.movement']);
  });

  it('do not take a field from Object.prototype for a missing one', async () => {
    const missing = { event_id: 'e-2', event_type: 'document', data: { ...DOCUMENT_EVENT.data } } as {
      event_id: string;
      event_type: string;
      data: Record<string, unknown>;
    };
    delete missing.data.hash_id;
    const proto = Object.prototype as Record<string, unknown>;
    proto.hash_id = 'polluted';
    try {
      const event = await verifyWebhook(signed(missing).body, signed(missing).signature, SECRET);
      if (event.known) throw new Error('expected an unrecognised event');
      expect(event.issues).toEqual([expect.objectContaining({ field: 'data.hash_id', message: 'is missing' })]);
    } finally {
      delete proto.hash_id;
    }
  });
});
