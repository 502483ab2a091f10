import { buildEwayBillModel, createMockService } from 'invoicing-service-sdk/testing';
import { describe, expect, it } from 'vitest';
import { post } from './helpers.js';

// The spec's values of transaction_type, written out here rather than read from the SDK, so that the emulator (built
// on the SDK's schema) is held to the spec and not to itself.
const SPEC_TRANSACTION_TYPES = ['Regular', 'Bill To - Ship To', 'Bill From - Dispatch From', 'Combination of 2 and 3'];

/** Sends `body` and reads the answer with its status, Content-Type and whether an e-way bill was generated. */
async function answer(body: unknown) {
  const service = createMockService({ rateLimit: false });
  const hashId = service.addDocument();
  const response = await post(service, hashId, body);
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    json: (await response.json()) as Record<string, unknown>,
    generated: service.getDocument(hashId)?.ewayBill !== undefined,
  };
}

/** Asserts the spec's ErrorEwayBill body (success false, error_code, message, errors) with errors for `fields`. */
function expectErrorEwayBill(json: Record<string, unknown>, fields: string[]) {
  expect(Object.keys(json).sort()).toEqual(['error_code', 'errors', 'message', 'success']);
  expect(json.success).toBe(false);
  expect(json.error_code).toBe('VALIDATION_ERROR');
  expect(json.message).toEqual(expect.stringMatching(/\S/));
  const errors = json.errors as Record<string, unknown>;
  expect(Object.keys(errors)).toEqual(fields);
  for (const field of fields) expect(errors[field]).toEqual([expect.stringMatching(/\S/)]);
}

describe("the mock service against the spec's fixed outcomes", () => {
  it.each(SPEC_TRANSACTION_TYPES)(
    'accepts the transaction_type %j with 200 and a SuccessResponseEwayBill',
    async (type) => {
      // ship_to_gstin only where it belongs: the portal refuses it with Regular (616) and Bill From - Dispatch From (864).
      const needsShipTo = type === 'Bill To - Ship To' || type === 'Combination of 2 and 3';
      const model = {
        ...buildEwayBillModel(),
        transaction_type: type,
        ...(needsShipTo ? { ship_to_gstin: '19AAPFU0939F1ZS' } : {}),
      };
      const { status, contentType, json, generated } = await answer(model);
      expect(status).toBe(200);
      expect(contentType).toMatch(/^application\/json/);
      expect(Object.keys(json).sort()).toEqual(['message', 'success']);
      expect(json).toEqual({ success: true, message: expect.stringMatching(/\S/) });
      expect(generated).toBe(true);
    },
  );

  it.each([
    'Bill To Ship To',
    'regular',
    'REGULAR',
    'Regular ',
    'Combination of 2 & 3',
    'Bill From-Dispatch From',
    '',
    3,
    null,
  ])("refuses the transaction_type %j, outside the spec's list, with 400 and an ErrorEwayBill", async (type) => {
    const { status, contentType, json, generated } = await answer({ ...buildEwayBillModel(), transaction_type: type });
    expect(status).toBe(400);
    expect(contentType).toMatch(/^application\/json/);
    expectErrorEwayBill(json, ['transaction_type']);
    expect(generated).toBe(false);
  });

  it("names the value it refused and the spec's values in the field error", async () => {
    const { json } = await answer({ ...buildEwayBillModel(), transaction_type: 'Bill To Ship To' });
    const [message] = (json.errors as Record<string, string[]>).transaction_type ?? [];
    expect(message).toContain("'Bill To Ship To'");
    for (const type of SPEC_TRANSACTION_TYPES) expect(message).toContain(type);
  });

  it("refuses 'Combination of 2 and 3' with an empty ship_to_gstin, with one error for that field", async () => {
    const model = { ...buildEwayBillModel(), transaction_type: 'Combination of 2 and 3', ship_to_gstin: '' };
    const { status, json, generated } = await answer(model);
    expect(status).toBe(400);
    expectErrorEwayBill(json, ['ship_to_gstin']);
    expect(generated).toBe(false);
  });

  it('accepts both vehicle types of the spec and refuses a field the spec does not have', async () => {
    for (const type of ['Regular', 'Over Dimensional Cargo']) {
      expect((await answer({ ...buildEwayBillModel(), vehicle_type: type })).status).toBe(200);
    }
    const { status, json } = await answer({ ...buildEwayBillModel(), unknown_field: 1 });
    expect(status).toBe(400);
    expectErrorEwayBill(json, ['(root)']);
    expect(JSON.stringify(json.errors)).toContain('unknown_field');
  });
});
