import { buildEwayBillModel, createMockService } from 'invoicing-service-sdk/testing';
import { describe, expect, it } from 'vitest';
import { post } from './helpers.js';

async function rejection(body: unknown, options: Parameters<typeof post>[3] = {}) {
  const service = createMockService({ rateLimit: false });
  const hashId = service.addDocument();
  const response = await post(service, hashId, body, options);
  const json = (await response.json()) as { success: boolean; error_code: string; errors: Record<string, string[]> };
  return { status: response.status, json, generated: service.getDocument(hashId)?.ewayBill !== undefined };
}

const address = buildEwayBillModel().dispatch_from;

describe('validation of the create-e-way-bill body by the mock service', () => {
  it.each([
    ['addr_id above 999999', { dispatch_from: { ...address, addr_id: 1_000_000 } }, 'dispatch_from.addr_id'],
    ['a negative addr_id', { dispatch_to: { ...address, addr_id: -1 } }, 'dispatch_to.addr_id'],
    ['a fractional addr_id', { dispatch_from: { ...address, addr_id: 1.5 } }, 'dispatch_from.addr_id'],
    ['a date written YYYY-MM-DD', { transporter_doc_date: '2026-11-21' }, 'transporter_doc_date'],
    ['a date that does not exist', { transporter_doc_date: '31-02-2026' }, 'transporter_doc_date'],
    ['a supply type outside the list', { supply_type: 'Outbound' }, 'supply_type'],
    ['a sub supply type outside the list', { sub_supply_type: 'Job work' }, 'sub_supply_type'],
    ['a transport mode outside the list', { transport_mode: 'Ship' }, 'transport_mode'],
    ['a vehicle type outside the list', { vehicle_type: 'Truck' }, 'vehicle_type'],
    ['a state misspelt', { dispatch_from: { ...address, state: 'Maharashtra' } }, 'dispatch_from.state'],
    ['a country outside the list', { dispatch_to: { ...address, country: 'USA' } }, 'dispatch_to.country'],
    ['a missing address field', { dispatch_to: { ...address, city: undefined } }, 'dispatch_to.city'],
    ['a missing required field', { supply_type: undefined }, 'supply_type'],
  ])('answers 400 VALIDATION_ERROR with a field error for %s', async (_label, overrides, field) => {
    const { status, json, generated } = await rejection({ ...buildEwayBillModel(), ...overrides });
    expect(status).toBe(400);
    expect(json.success).toBe(false);
    expect(json.error_code).toBe('VALIDATION_ERROR');
    expect(Object.keys(json.errors)).toEqual([field]);
    expect(json.errors[field]?.[0]).toEqual(expect.any(String));
    expect(generated).toBe(false);
  });

  it.each(['Bill To - Ship To', 'Combination of 2 and 3'])(
    'requires ship_to_gstin when transaction_type is %s',
    async (transactionType) => {
      const model = buildEwayBillModel({
        transaction_type: transactionType as 'Bill To - Ship To',
        ship_to_gstin: undefined,
      });
      const { status, json } = await rejection(model);
      expect(status).toBe(400);
      expect(Object.keys(json.errors)).toEqual(['ship_to_gstin']);
    },
  );

  it.each(['27AAPFU0939F1ZV', 'URP'])('accepts ship_to_gstin %s for Bill To - Ship To', async (gstin) => {
    const service = createMockService();
    const model = buildEwayBillModel({ transaction_type: 'Bill To - Ship To', ship_to_gstin: gstin });
    expect((await post(service, service.addDocument(), model)).status).toBe(200);
  });

  it('accepts the limits of addr_id, 0 and 999999', async () => {
    const service = createMockService();
    const model = buildEwayBillModel({ dispatch_from: { addr_id: 0 }, dispatch_to: { addr_id: 999_999 } });
    expect((await post(service, service.addDocument(), model)).status).toBe(200);
  });

  it('accepts both spellings of Ladakh, and OTHER TERRITORY for a foreign address', async () => {
    const service = createMockService({ rateLimit: false });
    for (const [state, country, pincode] of [
      ['LADAKH(NEWLYADDED)', 'India', '194101'],
      ['LADAKH(NEWLY ADDED)', 'India', '194101'],
      ['OTHER TERRITORY', 'Congo, Democratic Republic of the', '999999'],
    ] as const) {
      const model = buildEwayBillModel({ dispatch_to: { state, country, pincode } });
      expect((await post(service, service.addDocument(), model)).status).toBe(200);
    }
  });

  it('lists every broken field at once', async () => {
    const model = {
      ...buildEwayBillModel(),
      supply_type: 'x',
      transport_mode: 'y',
      dispatch_from: { ...address, addr_id: -5 },
    };
    const { json } = await rejection(model);
    expect(Object.keys(json.errors).sort()).toEqual(['dispatch_from.addr_id', 'supply_type', 'transport_mode']);
  });

  it('answers 400 to malformed JSON, keyed (root)', async () => {
    const { status, json } = await rejection(undefined, { raw: '{"supply_type": "Outward",' });
    expect(status).toBe(400);
    expect(json.error_code).toBe('VALIDATION_ERROR');
    expect(json.errors['(root)']?.[0]).toMatch(/Malformed JSON/);
  });

  it('answers 400 to a JSON body that is not an object', async () => {
    const { status, json } = await rejection([1, 2]);
    expect(status).toBe(400);
    expect(Object.keys(json.errors)).toEqual(['(root)']);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['no Content-Type', null],
  ])('answers 400 to a body sent as %s, keyed Content-Type', async (_label, contentType) => {
    const { status, json } = await rejection(buildEwayBillModel(), { contentType });
    expect(status).toBe(400);
    expect(json.error_code).toBe('VALIDATION_ERROR');
    expect(Object.keys(json.errors)).toEqual(['Content-Type']);
  });

  it('accepts application/json with a charset parameter', async () => {
    const service = createMockService();
    const response = await post(service, service.addDocument(), buildEwayBillModel(), {
      contentType: 'application/json; charset=utf-8',
    });
    expect(response.status).toBe(200);
  });
});
