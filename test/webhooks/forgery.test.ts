import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../src/webhooks/index.js';
import { DOCUMENT_EVENT, INVENTORY_EVENT, SECRET } from './fixtures.js';

// The body the service signed and the receiver got, and the forgeries an attacker (or a broken proxy) could send
// with it. Every one must be refused on both crypto paths, with one secret and with two (rotation).
const BODY = JSON.stringify(DOCUMENT_EVENT);
const hmac = (data: string | Buffer, key: string | Buffer = SECRET, algorithm = 'sha256') =>
  createHmac(algorithm, key).update(data).digest('hex');
const GOOD = hmac(BODY);
const flipNibble = (hex: string, at: number) =>
  `${hex.slice(0, at)}${((Number.parseInt(hex[at] ?? '0', 16) + 1) % 16).toString(16)}${hex.slice(at + 1)}`;

const FORGERIES: [string, string, string | null | undefined][] = [
  ['no X-Signature header', BODY, undefined],
  ['a null header', BODY, null],
  ['an empty header', BODY, ''],
  ['a header of blanks', BODY, '    '],
  ['a signature made with another secret', BODY, hmac(BODY, 'whsec_attacker')],
  ['a signature made with an empty key', BODY, hmac(BODY, '')],
  ['a signature made with the secret plus a space', BODY, hmac(BODY, `${SECRET} `)],
  ['a signature made with the upper-cased secret', BODY, hmac(BODY, SECRET.toUpperCase())],
  ['HMAC with key and message swapped', BODY, hmac(SECRET, BODY)],
  ['a plain SHA-256 of the body (no key)', BODY, createHash('sha256').update(BODY).digest('hex')],
  [
    'a plain SHA-256 of secret + body',
    BODY,
    createHash('sha256')
      .update(SECRET + BODY)
      .digest('hex'),
  ],
  ['HMAC-SHA1 of the body', BODY, hmac(BODY, SECRET, 'sha1')],
  ['HMAC-SHA512 of the body', BODY, hmac(BODY, SECRET, 'sha512')],
  ['the right digest in base64', BODY, Buffer.from(GOOD, 'hex').toString('base64')],
  ['the right digest prefixed with sha256=', BODY, `sha256=${GOOD}`],
  ['the right digest cut to 63 characters', BODY, GOOD.slice(0, 63)],
  ['the right digest with one character more', BODY, `${GOOD}0`],
  ['the right digest twice, comma-separated', BODY, `${GOOD},${GOOD}`],
  ['the right digest with its first nibble changed', BODY, flipNibble(GOOD, 0)],
  ['the right digest with its last nibble changed', BODY, flipNibble(GOOD, 63)],
  ['the right digest with a non-hex character', BODY, `${GOOD.slice(0, 10)}g${GOOD.slice(11)}`],
  [
    'the right digest in full-width digits',
    BODY,
    GOOD.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d))),
  ],
  ['sixty-four zeros', BODY, '0'.repeat(64)],
  ['the signature of another event (replayed onto this body)', JSON.stringify(INVENTORY_EVENT), GOOD],
  ['the body with one character changed', BODY.replace('INV-2026-0042', 'INV-2026-0043'), GOOD],
  ['the body re-serialised with other spacing', JSON.stringify(DOCUMENT_EVENT, null, 2), GOOD],
  ['the body with a trailing newline', `${BODY}\n`, GOOD],
  ['the body with a byte-order mark in front', `\uFEFF${BODY}`, GOOD],
];

describe('webhook forgeries', () => {
  it('lists 28 variants, and the genuine delivery they are made from verifies', async () => {
    expect(FORGERIES).toHaveLength(28);
    for (const crypto of ['node', 'webcrypto'] as const) {
      await expect(verifyWebhook(BODY, GOOD, SECRET, { crypto })).resolves.toMatchObject({ known: true });
    }
  });

  describe.each(['node', 'webcrypto'] as const)('on the %s crypto path', (crypto) => {
    it.each(FORGERIES)('refuses %s', async (_, body, signature) => {
      for (const secret of [SECRET, ['whsec_previous', SECRET]]) {
        const error = await verifyWebhook(body, signature, secret, { crypto }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WebhookVerificationError);
      }
    });
  });
});
