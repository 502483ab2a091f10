import {
  type EwayBillModel,
  EwayBillModelSchema,
  gstinCheckCharacter,
  ServiceClient,
  ValidationError,
} from 'invoicing-service-sdk';
import { describe, expect, it, vi } from 'vitest';
import { freshKey, validModel } from '../helpers/model.js';

const billToShipTo = (ship_to_gstin: string) =>
  validModel({ transaction_type: 'Bill To - Ship To', ship_to_gstin } as Partial<EwayBillModel>);

describe('ship_to_gstin', () => {
  it("accepts 'URP' and a valid GSTIN", () => {
    expect(EwayBillModelSchema.safeParse(billToShipTo('URP')).success).toBe(true);
    expect(EwayBillModelSchema.safeParse(billToShipTo('27AAPFU0939F1ZV')).success).toBe(true);
  });

  it('is refused by the client before sending, with a ValidationError naming the field and the fix', async () => {
    const fetch = vi.fn<typeof globalThis.fetch>();
    const client = new ServiceClient({ apiKey: freshKey('gst'), baseUrl: 'https://service.test/api', fetch });
    const error = await client
      .createEwayBill('doc1', billToShipTo('27AAPFU0939F1ZX'))
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ValidationError);
    const issues = (error as ValidationError).issues;
    expect(issues.map((issue) => issue.field)).toEqual(['ship_to_gstin']);
    expect(issues[0]?.message).toContain("Expected 'URP' or a valid GSTIN");
    expect(issues[0]?.message).toContain("should be 'V'");
    expect(fetch).not.toHaveBeenCalled();
  });

  it("points lower-case 'urp' to the upper-case spelling", () => {
    const parsed = EwayBillModelSchema.safeParse(billToShipTo('urp'));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toContain('in upper case');
  });

  it('is checked whenever it is given, and still required for Bill To - Ship To', () => {
    expect(EwayBillModelSchema.safeParse(validModel({ ship_to_gstin: 'X' })).success).toBe(false);
    const missing = EwayBillModelSchema.safeParse(
      validModel({ transaction_type: 'Combination of 2 and 3' } as Partial<EwayBillModel>),
    );
    expect(missing.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['ship_to_gstin', expect.stringContaining("Required when transaction_type is 'Combination of 2 and 3'")],
    ]);
  });

  it('accepts registrations other than the regular PAN-based one (UIN, TDS, TCS) when their check character is right', () => {
    // Shapes of a UIN (embassies, UN bodies), a TAN-based TDS registration and an e-commerce operator's TCS id.
    for (const first14 of ['0717UNO00157UN', '07DELD01234E1D', '27AAACF1234K1C']) {
      const valid = `${first14}${gstinCheckCharacter(first14)}`;
      expect(EwayBillModelSchema.safeParse(billToShipTo(valid)).success).toBe(true);
      const wrong = `${first14}${gstinCheckCharacter(first14) === '0' ? '1' : '0'}`;
      expect(EwayBillModelSchema.safeParse(billToShipTo(wrong)).success).toBe(false);
    }
  });

  it('refuses such a registration with a state code that does not exist', () => {
    const first14 = '4217UNO00157UN';
    expect(EwayBillModelSchema.safeParse(billToShipTo(`${first14}${gstinCheckCharacter(first14)}`)).success).toBe(
      false,
    );
  });

  it('refuses a 15-character value with a right check character that has no registration layout', () => {
    // All zeros, and a regular GSTIN whose 14th character is not 'Z': neither is a GSTIN, UIN, TDS or TCS id.
    for (const first14 of ['27000000000000', '27AAPFU0939F1Y']) {
      const value = `${first14}${gstinCheckCharacter(first14)}`;
      const result = EwayBillModelSchema.safeParse(billToShipTo(value));
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual(['ship_to_gstin']);
    }
  });
});
