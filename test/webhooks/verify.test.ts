import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadNodeCrypto, resolveCryptoPath } from '../../src/webhooks/crypto-backend.js';
import {
  signWebhook,
  verifyWebhook,
  verifyWebhookSignature,
  WebhookPayloadError,
  WebhookVerificationError,
} from '../../src/webhooks/index.js';
import { DOCUMENT_EVENT, INVENTORY_EVENT, SECRET, signed } from './fixtures.js';

const PATHS = ['node', 'webcrypto'] as const;

describe.each(PATHS)('verifyWebhook on the %s crypto path', (crypto) => {
  it('resolves to the typed document event for a correctly signed body', async () => {
    const { body, signature } = signed(DOCUMENT_EVENT);
    const event = await verifyWebhook(body, signature, SECRET, { crypto });
    expect(event).toEqual({ known: true, ...DOCUMENT_EVENT });
  });

  it('accepts the body as a string, a Buffer, a Uint8Array, an ArrayBuffer and a DataView', async () => {
    const { body, signature } = signed(INVENTORY_EVENT);
    const buffer = Buffer.from(body);
    const bytes = new TextEncoder().encode(body);
    const inputs = [body, buffer, bytes, bytes.slice().buffer, new DataView(bytes.slice().buffer)];
    for (const input of inputs) {
      await expect(verifyWebhook(input, signature, SECRET, { crypto })).resolves.toMatchObject({
        event_type: 'inventory',
      });
    }
  });

  it('accepts an upper-case signature with surrounding whitespace', async () => {
    const { body, signature } = signed(DOCUMENT_EVENT);
    await expect(verifyWebhook(body, ` ${signature.toUpperCase()}\t`, SECRET, { crypto })).resolves.toMatchObject({
      event_id: DOCUMENT_EVENT.event_id,
    });
  });

  it.each([
    ['undefined', undefined, 'missing_signature'],
    ['null', null, 'missing_signature'],
    ['blank', '   ', 'missing_signature'],
    ['too short', 'abcd', 'malformed_signature'],
    ['not hex', 'z'.repeat(64), 'malformed_signature'],
    ['prefixed with sha256=', `sha256=${'a'.repeat(64)}`, 'malformed_signature'],
    ['the right length but wrong', 'a'.repeat(64), 'signature_mismatch'],
  ] as const)('rejects a %s signature as %s', async (_, signature, reason) => {
    const { body } = signed(DOCUMENT_EVENT);
    const error = await verifyWebhook(body, signature, SECRET, { crypto }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toMatchObject({ code: 'WEBHOOK_VERIFICATION_FAILED', reason });
  });

  it('rejects a body whose signature was computed over re-serialised JSON', async () => {
    const raw = '{ "event_id": "e-1", "event_type": "document", "data": {} }';
    const reserialised = JSON.stringify(JSON.parse(raw));
    await expect(verifyWebhook(raw, signWebhook(reserialised, SECRET), SECRET, { crypto })).rejects.toMatchObject({
      reason: 'signature_mismatch',
    });
  });

  it('rejects a signature made with another secret', async () => {
    const { body, signature } = signed(DOCUMENT_EVENT, 'whsec_other');
    await expect(verifyWebhook(body, signature, SECRET, { crypto })).rejects.toBeInstanceOf(WebhookVerificationError);
  });

  it('never puts the secret, the expected digest or the received signature in the error', async () => {
    const { body, signature } = signed(DOCUMENT_EVENT);
    const wrong = `${signature.slice(0, 63)}${signature.endsWith('0') ? '1' : '0'}`;
    const error = await verifyWebhook(body, wrong, SECRET, { crypto }).catch((e: unknown) => e);
    const shown = [String(error), JSON.stringify(error), (error as Error).stack ?? ''].join('\n');
    expect(error).toBeInstanceOf(WebhookVerificationError);
    for (const secretish of [SECRET, signature, wrong, signature.slice(0, 16), wrong.slice(0, 16)]) {
      expect(shown.toLowerCase()).not.toContain(secretish.toLowerCase());
    }
  });

  it('returns a drifted known event unrecognised, with the field paths in issues', async () => {
    const { body, signature } = signed({ event_id: 'e-2', event_type: 'inventory', data: { qty: 'ten' } });
    const event = await verifyWebhook(body, signature, SECRET, { crypto });
    expect(event).toMatchObject({ known: false, received_event_type: 'inventory', data: { qty: 'ten' } });
    expect(!event.known && event.issues.map((issue) => issue.field)).toContain('data.qty');
  });

  it('with strictPayload, reports a drifted known event as a payload error with the field path', async () => {
    const { body, signature } = signed({ event_id: 'e-2', event_type: 'inventory', data: { qty: 'ten' } });
    const error = await verifyWebhook(body, signature, SECRET, { crypto, strictPayload: true }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WebhookPayloadError);
    expect((error as WebhookPayloadError).issues.map((issue) => issue.field)).toContain('data.qty');
  });
});

describe('verifyWebhook input checks', () => {
  it.each([
    ['a parsed object', { event_id: 'e' }],
    ['an array', []],
    ['null', null],
    ['a number', 42],
  ])('refuses %s as the body with a message on how to get the raw body', async (_, body) => {
    const error = await verifyWebhook(body as never, 'a'.repeat(64), SECRET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    const message = (error as Error).message;
    expect(message).toContain('express.raw(');
    expect(message).toContain('await request.text()');
    expect(message).toContain("parseAs: 'buffer'");
    expect(message).not.toContain(SECRET);
  });

  it('refuses an empty secret with a TypeError that names it', async () => {
    const { body, signature } = signed(DOCUMENT_EVENT);
    await expect(verifyWebhook(body, signature, '')).rejects.toThrow(/secret must be/);
  });

  it('refuses an unknown crypto choice', async () => {
    const { body, signature } = signed(DOCUMENT_EVENT);
    await expect(verifyWebhook(body, signature, SECRET, { crypto: 'openssl' as never })).rejects.toThrow(
      /crypto must be/,
    );
  });
});

describe("verifyWebhook under crypto: 'auto' on Node", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('resolves the auto choice to the node path', () => {
    expect(resolveCryptoPath('auto')).toBe('node');
    expect(resolveCryptoPath()).toBe('node');
  });

  it('checks the signature with node:crypto, not Web Crypto, and gives the same event as both forced paths', async () => {
    const { body, signature } = signed(INVENTORY_EVENT);
    const nodeCrypto = loadNodeCrypto();
    if (nodeCrypto === undefined) throw new Error('this test runs on Node, where node:crypto is present');
    const nodeCompare = vi.spyOn(nodeCrypto, 'timingSafeEqual');
    const webVerify = vi.spyOn(globalThis.crypto.subtle, 'verify');

    const auto = await verifyWebhook(body, signature, SECRET, { crypto: 'auto' });
    expect(nodeCompare).toHaveBeenCalledTimes(1);
    expect(webVerify).not.toHaveBeenCalled();

    await expect(verifyWebhook(body, signature, SECRET, { crypto: 'node' })).resolves.toEqual(auto);
    await expect(verifyWebhook(body, signature, SECRET, { crypto: 'webcrypto' })).resolves.toEqual(auto);
    expect(webVerify).toHaveBeenCalledTimes(1);
  });
});

describe.each(PATHS)('verifyWebhookSignature on the %s crypto path', (crypto) => {
  it('resolves for a good signature without parsing the body', async () => {
    const body = 'not json at all';
    await expect(verifyWebhookSignature(body, signWebhook(body, SECRET), SECRET, { crypto })).resolves.toBeUndefined();
  });

  it('rejects a wrong signature with a WebhookVerificationError', async () => {
    await expect(verifyWebhookSignature('{}', 'c'.repeat(64), SECRET, { crypto })).rejects.toMatchObject({
      reason: 'signature_mismatch',
    });
  });

  it('refuses a parsed object as the body', async () => {
    await expect(verifyWebhookSignature({} as never, 'c'.repeat(64), SECRET, { crypto })).rejects.toThrow(TypeError);
  });
});
