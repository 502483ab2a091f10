import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook, WebhookPayloadError, WebhookVerificationError } from '../../src/webhooks/index.js';

const RUNS = { numRuns: 200 };
const body = fc.uint8Array({ minLength: 0, maxLength: 512 });
const secret = fc.string({ minLength: 1, maxLength: 64, unit: 'binary' });
const PATHS = ['node', 'webcrypto'] as const;

/**
 * 'verified' when the signature check passed: the event resolved, or the body was refused as a payload after the
 * check. A refused signature gives its reason; any other error is rethrown, so it fails the property.
 */
async function outcome(data: Uint8Array, signature: string, key: string, crypto: (typeof PATHS)[number]) {
  try {
    await verifyWebhook(data, signature, key, { crypto });
    return 'verified';
  } catch (error) {
    if (error instanceof WebhookPayloadError) return 'verified';
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}

describe.each(PATHS)('signature properties on the %s crypto path', (crypto) => {
  it('accepts the signature of any body under any secret', async () => {
    await fc.assert(
      fc.asyncProperty(body, secret, async (data, key) => {
        expect(await outcome(data, signWebhook(data, key), key, crypto)).toBe('verified');
      }),
      RUNS,
    );
  });

  it('rejects any change to the body', async () => {
    const change = fc
      .tuple(body, secret, fc.nat(), fc.integer({ min: 1, max: 255 }), fc.constantFrom('flip', 'append', 'drop'))
      .filter(([data, , , , kind]) => kind !== 'drop' || data.length > 0);
    await fc.assert(
      fc.asyncProperty(change, async ([data, key, at, delta, kind]) => {
        const signature = signWebhook(data, key);
        let changed: Uint8Array;
        if (kind === 'flip') {
          changed = data.length === 0 ? Uint8Array.of(delta) : data.slice();
          const i = at % Math.max(changed.length, 1);
          if (data.length > 0) changed[i] = ((changed[i] ?? 0) + delta) % 256;
        } else if (kind === 'append') {
          changed = Uint8Array.from([...data, delta]);
        } else {
          changed = data.slice(0, data.length - 1);
        }
        expect(await outcome(changed, signature, key, crypto)).toBe('signature_mismatch');
      }),
      RUNS,
    );
  });

  it('rejects any change to the signature', async () => {
    const change = fc.tuple(body, secret, fc.nat({ max: 63 }), fc.integer({ min: 1, max: 15 }));
    await fc.assert(
      fc.asyncProperty(change, async ([data, key, at, delta]) => {
        const signature = signWebhook(data, key);
        const digit = ((Number.parseInt(signature[at] ?? '0', 16) + delta) % 16).toString(16);
        const changed = `${signature.slice(0, at)}${digit}${signature.slice(at + 1)}`;
        expect(await outcome(data, changed, key, crypto)).toBe('signature_mismatch');
      }),
      RUNS,
    );
  });

  it('rejects the signature under any other secret', async () => {
    const pair = fc.tuple(body, secret, secret).filter(([, a, b]) => a !== b);
    await fc.assert(
      fc.asyncProperty(pair, async ([data, key, other]) => {
        // HMAC pads short keys with zero bytes, so keys whose UTF-8 differs only by trailing NULs are one key.
        const bytesOf = (text: string) =>
          Buffer.from(text, 'utf8')
            .toString('hex')
            .replace(/(00)+$/, '');
        fc.pre(bytesOf(key) !== bytesOf(other));
        expect(await outcome(data, signWebhook(data, key), other, crypto)).toBe('signature_mismatch');
      }),
      RUNS,
    );
  });
});

describe('the two crypto paths', () => {
  it('give the same answer for any body, signature and secret', async () => {
    const input = fc.tuple(body, secret, fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.string({ maxLength: 70 })));
    await fc.assert(
      fc.asyncProperty(input, async ([data, key, guess]) => {
        for (const signature of [guess, signWebhook(data, key)]) {
          expect(await outcome(data, signature, key, 'webcrypto')).toBe(await outcome(data, signature, key, 'node'));
        }
      }),
      RUNS,
    );
  });
});
