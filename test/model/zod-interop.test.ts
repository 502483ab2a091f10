import { ServiceClient, ValidationError } from 'invoicing-service-sdk';
import { EwayBillAddressSchema, EwayBillModelSchema } from 'invoicing-service-sdk/model';
import { buildDocumentEvent } from 'invoicing-service-sdk/testing';
import { DocumentEventDataSchema, WebhookEnvelopeSchema } from 'invoicing-service-sdk/webhooks';
import { describe, expect, it } from 'vitest';
// A user's own zod: classic, which also loads zod's English locale into the shared configuration.
import * as z from 'zod';
import { recordingFetch } from '../helpers/fake-fetch.js';
import { freshKey, validModel } from '../helpers/model.js';

// The SDK's schemas are zod/mini schemas (issue 13); users mostly write classic zod. Both are zod 4 schemas on one
// core, so the SDK's schemas must work inside a user's classic schema, and keep the SDK's own messages there.

const Shipment = z.object({
  reference: z.string(),
  model: EwayBillModelSchema,
  alternates: z.array(EwayBillAddressSchema),
  events: z.array(DocumentEventDataSchema).optional(),
});

const documentData = () => buildDocumentEvent().data;

describe("the SDK's schemas inside a user's classic zod schema", () => {
  it('parse a valid value with .parse and .safeParse, and return the data', () => {
    const value = { reference: 'SO-1', model: validModel(), alternates: [validModel().dispatch_to] };
    expect(Shipment.parse(value)).toEqual(value);
    const data = documentData();
    const parsed = Shipment.safeParse({ ...value, events: [data] });
    expect(parsed.success).toBe(true);
    expect(parsed.data?.events?.[0]).toEqual(data);
  });

  it('report an invalid nested value with its full path and the SDK’s message, not zod’s locale', () => {
    const model = validModel();
    const parsed = Shipment.safeParse({
      reference: 'SO-1',
      model: { ...model, transport_mode: 'road', dispatch_from: { ...model.dispatch_from, addr_id: -1 } },
      alternates: [{ ...model.dispatch_to, state: 'Delhi' }],
    });
    expect(parsed.success).toBe(false);
    const issues = parsed.error?.issues.map((issue) => [issue.path.join('.'), issue.message]);
    expect(issues).toEqual([
      ['model.dispatch_from.addr_id', 'Expected at least 0; got -1'],
      ['model.transport_mode', "Expected one of 'Road', 'Rail', 'Air', 'Ship or Ship Cum Road/Rail'; got 'road'"],
      [
        'alternates.0.state',
        "Expected one of 39 allowed values, spelled exactly (for example 'JAMMU AND KASHMIR', 'HIMACHAL PRADESH', 'PUNJAB'); got 'Delhi'",
      ],
    ]);
  });

  it('keep the cross-field rule (ship_to_gstin for Bill To - Ship To) when nested', () => {
    const parsed = Shipment.safeParse({
      reference: 'SO-1',
      model: { ...validModel(), transaction_type: 'Bill To - Ship To' },
      alternates: [],
    });
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['model.ship_to_gstin']);
    expect(parsed.error?.issues[0]?.message).toMatch(/^Required when transaction_type is 'Bill To - Ship To'/);
  });

  it('throw a classic ZodError from .parse, and let the address shape be spread into a classic object', () => {
    expect(() => Shipment.parse({ reference: 'SO-1', model: null, alternates: [] })).toThrow(z.ZodError);
    const Extended = z.object({ ...EwayBillAddressSchema.shape, landmark: z.string() });
    expect(Extended.parse({ ...validModel().dispatch_from, landmark: 'near the station' }).landmark).toBe(
      'near the station',
    );
    expect(Extended.safeParse({ ...validModel().dispatch_from, addr_id: 1.5, landmark: 'x' }).error?.issues).toEqual([
      expect.objectContaining({ path: ['addr_id'], message: 'Expected integer; got 1.5' }),
    ]);
  });

  it('work with the envelope schema in a classic union', () => {
    const Incoming = z.union([WebhookEnvelopeSchema, z.literal('ping')]);
    expect(Incoming.safeParse('ping').success).toBe(true);
    expect(Incoming.safeParse({ event_id: 'e1', event_type: 'document', data: {} }).success).toBe(true);
    expect(Incoming.safeParse({ event_id: '', event_type: 'document', data: {} }).success).toBe(false);
  });
});

describe("the SDK's schemas used directly", () => {
  it('give messages that say what was expected and what was got, with no locale needed', () => {
    const model = validModel();
    const parsed = EwayBillModelSchema.safeParse({
      ...model,
      supply_type: undefined,
      vehicle_no: 'MH12AB1234',
      dispatch_to: { ...model.dispatch_to, pincode: 411001 },
    });
    expect(parsed.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)).toEqual([
      "supply_type: Required (one of 'Outward', 'Inward')",
      'dispatch_to.pincode: Expected string; got 411001',
      ": Unknown field 'vehicle_no': not in the spec (check the spelling)",
    ]);
  });

  it('give the event schemas the same kind of messages', () => {
    const envelope = WebhookEnvelopeSchema.safeParse({ event_id: '', event_type: 3 });
    expect(envelope.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)).toEqual([
      "event_id: Expected at least 1 character; got '' (0 characters)",
      'event_type: Expected string; got 3',
      'data: Required (any value)',
    ]);
    expect(WebhookEnvelopeSchema.safeParse({ event_id: 'e', event_type: 'x', data: null }).success).toBe(true);
    const data = DocumentEventDataSchema.safeParse({ ...buildDocumentEvent().data, hash_id: 7 });
    expect(data.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)).toEqual([
      'hash_id: Expected string; got 7',
    ]);
  });

  it('give the client’s ValidationError the same messages, and never the API key', async () => {
    const apiKey = freshKey('secret');
    const { fetch, calls } = recordingFetch();
    const client = new ServiceClient({ apiKey, baseUrl: 'https://s.test/api', fetch });
    const model = validModel();
    const error = await client
      .createEwayBill('doc', { ...model, dispatch_to: { ...model.dispatch_to, pincode: 411001 } } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(calls).toHaveLength(0);
    expect((error as ValidationError).issues).toEqual([
      expect.objectContaining({ field: 'dispatch_to.pincode', message: 'Expected string; got 411001' }),
    ]);
    expect(JSON.stringify(error)).not.toContain(apiKey);
    expect(String((error as ValidationError).message)).not.toContain(apiKey);
  });
});
