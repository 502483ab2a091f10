import { describe, expect, it } from 'vitest';
import {
  createNodeWebhookHandler,
  createWebhookHandler,
  verifyWebhook,
  verifyWebhookSignature,
  WebhookVerificationError,
} from '../../src/webhooks/index.js';
import { DOCUMENT_EVENT, deliveryRequest, INVENTORY_EVENT, SECRET, signed, withId } from './fixtures.js';

const PATHS = ['node', 'webcrypto'] as const;
const NEW_SECRET = 'whsec_new_4c3b2a190817_DO_NOT_LEAK';
const OTHER_SECRET = 'whsec_other_5e6f7a8b9c0d_DO_NOT_LEAK';
// During a rotation the receiver accepts the new secret and the one being retired (SECRET).
const ROTATING = [NEW_SECRET, SECRET] as const;

describe.each(PATHS)('secret rotation on the %s crypto path', (crypto) => {
  it('verifies a delivery signed with the new secret and one signed with the old secret', async () => {
    const byNew = signed(DOCUMENT_EVENT, NEW_SECRET);
    const byOld = signed(INVENTORY_EVENT, SECRET);
    await expect(verifyWebhook(byNew.body, byNew.signature, ROTATING, { crypto })).resolves.toMatchObject({
      event_id: DOCUMENT_EVENT.event_id,
    });
    await expect(verifyWebhook(byOld.body, byOld.signature, ROTATING, { crypto })).resolves.toMatchObject({
      event_id: INVENTORY_EVENT.event_id,
    });
    await expect(verifyWebhookSignature(byOld.body, byOld.signature, [SECRET, NEW_SECRET], { crypto })).resolves.toBe(
      undefined,
    );
  });

  it('rejects a signature made with a secret that is not in the list, without showing any of them', async () => {
    const { body, signature } = signed(DOCUMENT_EVENT, OTHER_SECRET);
    const error = await verifyWebhook(body, signature, ROTATING, { crypto }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toMatchObject({ reason: 'signature_mismatch' });
    const shown = `${String(error)} ${JSON.stringify(error)}`;
    for (const secret of [...ROTATING, OTHER_SECRET]) expect(shown).not.toContain(secret);
    await expect(verifyWebhookSignature(body, signature, ROTATING, { crypto })).rejects.toMatchObject({
      reason: 'signature_mismatch',
    });
  });

  it('keeps verifying with a single secret in a list of one', async () => {
    const { body, signature } = signed(DOCUMENT_EVENT);
    await expect(verifyWebhookSignature(body, signature, [SECRET], { crypto })).resolves.toBe(undefined);
    await expect(verifyWebhookSignature(body, signature, [NEW_SECRET], { crypto })).rejects.toBeInstanceOf(
      WebhookVerificationError,
    );
  });

  it('lets createWebhookHandler answer 200 to both secrets and 401 to any other', async () => {
    const events: string[] = [];
    const handler = createWebhookHandler({
      secret: ROTATING,
      crypto,
      onEvent: (event) => {
        events.push(event.event_id);
      },
      onError: () => {},
    });
    const byNew = await handler(deliveryRequest(withId(DOCUMENT_EVENT, 'r-1'), { secret: NEW_SECRET }));
    const byOld = await handler(deliveryRequest(withId(DOCUMENT_EVENT, 'r-2'), { secret: SECRET }));
    const byOther = await handler(deliveryRequest(withId(DOCUMENT_EVENT, 'r-3'), { secret: OTHER_SECRET }));
    expect([byNew.status, byOld.status, byOther.status]).toEqual([200, 200, 401]);
    expect(events).toEqual(['r-1', 'r-2']);
  });

  it('lets createNodeWebhookHandler answer 200 to both secrets and 401 to any other', async () => {
    const handler = createNodeWebhookHandler({ secret: ROTATING, crypto, onEvent: () => {}, onError: () => {} });
    const statuses: number[] = [];
    for (const [id, secret] of [
      ['n-1', NEW_SECRET],
      ['n-2', SECRET],
      ['n-3', OTHER_SECRET],
    ] as const) {
      const { body, signature } = signed(withId(DOCUMENT_EVENT, id), secret);
      const response = { statusCode: 0, setHeader: () => {}, end: () => {} };
      await handler(
        { method: 'POST', headers: { 'x-signature': signature }, body, async *[Symbol.asyncIterator]() {} },
        response,
      );
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([200, 200, 401]);
  });
});

describe('secret lists that are refused', () => {
  it.each([
    ['an empty array', [], /secret must be .*non-empty array.*; got an empty array\./],
    [
      'an empty string in the array',
      [SECRET, ''],
      /secret\[1\] must be a non-empty webhook secret string; got an empty string\./,
    ],
    ['a number in the array', [42], /secret\[0\] must be a non-empty webhook secret string; got number\./],
    ['a nested array', [[SECRET]], /secret\[0\] must be .*; got a nested array\./],
    ['an empty string', '', /secret must be .*; got an empty string\./],
  ])('refuses %s with a TypeError that never shows a secret', async (_, secret, message) => {
    const { body, signature } = signed(DOCUMENT_EVENT);
    const checks = [
      () => createWebhookHandler({ secret: secret as never, onEvent: () => {} }),
      () => createNodeWebhookHandler({ secret: secret as never, onEvent: () => {} }),
    ];
    for (const check of checks) {
      expect(check).toThrow(TypeError);
      expect(check).toThrow(message);
      expect(check).toThrow(expect.objectContaining({ message: expect.not.stringContaining(SECRET) }));
    }
    for (const verify of [verifyWebhook, verifyWebhookSignature]) {
      const error = await verify(body, signature, secret as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain(SECRET);
    }
  });

  it('copies the list when the handler is made, so a later change to the array has no effect', async () => {
    const secrets = [NEW_SECRET, SECRET];
    const handler = createWebhookHandler({ secret: secrets, onEvent: () => {}, onError: () => {} });
    secrets.length = 0;
    secrets.push(OTHER_SECRET);
    expect((await handler(deliveryRequest(DOCUMENT_EVENT, { secret: SECRET }))).status).toBe(200);
    expect((await handler(deliveryRequest(INVENTORY_EVENT, { secret: OTHER_SECRET }))).status).toBe(401);
  });
});
