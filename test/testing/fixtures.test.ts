import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { EwayBillModelSchema, SUB_SUPPLY_TYPES, TRANSACTION_TYPES, TRANSPORT_MODES } from 'invoicing-service-sdk/model';
import {
  buildDocumentEvent,
  buildEwayBillModel,
  buildInventoryEvent,
  formatEventTimestamp,
  signWebhook,
} from 'invoicing-service-sdk/testing';
import { describe, expect, it } from 'vitest';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/;

describe('fixtures of the testing kit', () => {
  it('builds an e-way bill model that parses with EwayBillModelSchema', () => {
    expect(EwayBillModelSchema.safeParse(buildEwayBillModel()).success).toBe(true);
  });

  it('stays valid for any transaction type, sub supply type and transport mode', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TRANSACTION_TYPES),
        fc.constantFrom(...SUB_SUPPLY_TYPES),
        fc.constantFrom(...TRANSPORT_MODES),
        (transaction_type, sub_supply_type, transport_mode) =>
          EwayBillModelSchema.safeParse(buildEwayBillModel({ transaction_type, sub_supply_type, transport_mode }))
            .success,
      ),
      { numRuns: 60 },
    );
  });

  it('merges address overrides field by field', () => {
    const model = buildEwayBillModel({ dispatch_to: { city: 'Chennai', state: 'TAMIL NADU', pincode: '600001' } });
    expect(model.dispatch_to).toMatchObject({ city: 'Chennai', state: 'TAMIL NADU', addr_id: 2, country: 'India' });
  });

  it('fills ship_to_gstin for Bill To - Ship To, unless the override names it', () => {
    expect(buildEwayBillModel({ transaction_type: 'Bill To - Ship To' }).ship_to_gstin).toMatch(/^\d{2}[A-Z0-9]{13}$/);
    const invalid = buildEwayBillModel({ transaction_type: 'Bill To - Ship To', ship_to_gstin: undefined });
    expect(EwayBillModelSchema.safeParse(invalid).success).toBe(false);
  });

  it('dates the model today, written DD-MM-YYYY', () => {
    expect(buildEwayBillModel().transporter_doc_date).toMatch(/^\d{2}-\d{2}-\d{4}$/);
  });

  it('builds document and inventory events in the spec shape, with fresh UUIDs', () => {
    const doc = buildDocumentEvent();
    const inv = buildInventoryEvent({ event_id: 'fixed', data: { movement: 'out' } });
    expect(doc.event_type).toBe('document');
    expect(doc.event_id).not.toBe(buildDocumentEvent().event_id);
    expect(doc.data.timestamp).toMatch(TIMESTAMP);
    expect(Object.keys(doc.data).sort()).toEqual(['document_type', 'hash_id', 'message', 'serial_number', 'timestamp']);
    expect(inv).toMatchObject({ event_id: 'fixed', event_type: 'inventory', data: { movement: 'out' } });
    expect(Object.keys(inv.data).sort()).toEqual([
      'movement',
      'partner_product_id',
      'product_name',
      'qty',
      'service_product_id',
      'timestamp',
    ]);
  });

  it('writes event timestamps in India time with six fraction digits', () => {
    expect(formatEventTimestamp(new Date('2026-11-21T05:00:00.123Z'))).toBe('2026-11-21 10:30:00.123000');
    expect(formatEventTimestamp(new Date('2026-12-31T20:00:00.000Z'))).toBe('2027-01-01 01:30:00.000000');
  });

  it('signs a body as hex HMAC-SHA256 of its exact bytes, as node:crypto computes it', () => {
    const body = JSON.stringify(buildDocumentEvent());
    expect(signWebhook(body, 'secret')).toBe(createHmac('sha256', 'secret').update(body).digest('hex'));
    expect(signWebhook(body, 'secret')).not.toBe(signWebhook(`${body} `, 'secret'));
  });
});
