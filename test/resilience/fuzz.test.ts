import fc from 'fast-check';
import { ServiceClient, ServiceError, ValidationError } from 'invoicing-service-sdk';
import {
  signWebhook,
  verifyWebhook,
  WebhookPayloadError,
  WebhookVerificationError,
} from 'invoicing-service-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { freshKey, validModel } from '../helpers/model.js';

// The rate limit is not under test here: an immediate limiter keeps hundreds of runs fast.
const immediate = { acquire: async () => {} };

function clientAnswering(answer: () => Response) {
  return new ServiceClient({
    apiKey: freshKey('fuzz'),
    baseUrl: 'https://fuzz.test/api/partner',
    rateLimiter: immediate,
    maxRetries: 0,
    fetch: async () => answer(),
    // Random models draw preflight findings; they are not what this fuzzes, and would print on every run.
    onWarning: () => {},
  });
}

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const envelopeLike = fc.record(
  {
    success: fc.oneof(fc.boolean(), fc.constant(undefined), jsonValue),
    error_code: fc.oneof(
      fc.string(),
      fc.constantFrom(
        'UNAUTHORIZED',
        'FORBIDDEN',
        'INVALID_HASH_ID',
        'PORTAL_ERROR_604',
        'PORTAL_ERROR_',
        'PORTAL_ERROR_-1',
      ),
      jsonValue,
    ),
    message: fc.oneof(fc.string(), jsonValue),
    errors: jsonValue,
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  fc.string({ maxLength: 200 }),
  jsonValue.map((v) => JSON.stringify(v)),
  envelopeLike.map((v) => JSON.stringify(v)),
  fc.uint8Array({ maxLength: 200 }),
);

describe('fuzzing', () => {
  it('turns any answer into a success or a ServiceError, never another throw', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 200, max: 599 }),
        body,
        fc.option(fc.string({ maxLength: 20 })),
        async (status, payload, retryAfter) => {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (retryAfter !== null && /^[\x20-\x7e]*$/.test(retryAfter)) headers['retry-after'] = retryAfter;
          const noBody = status === 204 || status === 205 || status === 304;
          const client = clientAnswering(() => new Response(noBody ? null : payload, { status, headers }));
          try {
            const result = await client.createEwayBill('doc', validModel());
            expect(result.success).toBe(true);
            expect(status).toBeLessThan(300);
          } catch (error) {
            expect(error).toBeInstanceOf(ServiceError);
            expect(typeof (error as ServiceError).code).toBe('string');
            expect((error as Error).message.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('turns any model into a ValidationError or a request, never a crash', async () => {
    const valid = validModel();
    const mutated = fc
      .record({
        field: fc.constantFrom(...Object.keys(valid), 'dispatch_from', 'dispatch_to', 'extra'),
        sub: fc.constantFrom('addr_id', 'state', 'country', 'pincode', 'city', 'zzz'),
        value: fc.oneof(jsonValue, fc.constant(undefined)),
        nested: fc.boolean(),
      })
      .map(({ field, sub, value, nested }) => {
        const copy = structuredClone(valid) as Record<string, unknown>;
        if (nested && (field === 'dispatch_from' || field === 'dispatch_to'))
          (copy[field] as Record<string, unknown>)[sub] = value;
        else copy[field] = value;
        return copy;
      });
    const client = clientAnswering(() => Response.json({ success: true, message: 'ok' }));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.anything(), mutated),
        fc.oneof(fc.string(), fc.anything()),
        async (model, docHashId) => {
          try {
            await client.createEwayBill(docHashId as string, model as never);
          } catch (error) {
            expect(error).toBeInstanceOf(ValidationError);
            expect((error as ValidationError).issues.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('turns any webhook input into an event or a webhook error, never another throw', async () => {
    const envelope = fc.record(
      {
        event_id: fc.oneof(fc.uuid(), fc.string(), jsonValue),
        event_type: fc.oneof(fc.constantFrom('document', 'inventory'), fc.string(), jsonValue),
        data: fc.oneof(
          jsonValue,
          fc.record(
            { hash_id: fc.string(), qty: fc.oneof(fc.double(), fc.string()), movement: fc.string() },
            { requiredKeys: [] },
          ),
        ),
      },
      { requiredKeys: [] },
    );
    const rawBody = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.uint8Array({ maxLength: 300 }),
      envelope.map((v) => JSON.stringify(v)),
      jsonValue.map((v) => JSON.stringify(v)),
    );
    const secret = fc.string({ minLength: 1, maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(
        rawBody,
        secret,
        fc.oneof(fc.constant('sign'), fc.string(), fc.constant(null), fc.constant(undefined)),
        async (body, key, header) => {
          const signature = header === 'sign' ? signWebhook(body, key) : header;
          try {
            const event = await verifyWebhook(body, signature, key);
            expect(header).toBe('sign');
            expect(typeof event.event_type).toBe('string');
          } catch (error) {
            const expected = header === 'sign' ? WebhookPayloadError : WebhookVerificationError;
            expect(error).toBeInstanceOf(expected);
            // A short secret may appear in any text by chance; a long one must never.
            if (key.length >= 12) expect((error as Error).message).not.toContain(key);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
