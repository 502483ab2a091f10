import { type EwayBillModel, type RateLimiter, ServiceClient, ValidationError } from 'invoicing-service-sdk';
import { COUNTRIES, EwayBillModelSchema, formatServiceDate, isServiceDate, STATES } from 'invoicing-service-sdk/model';
import { describe, expect, it } from 'vitest';
import { recordingFetch } from '../helpers/fake-fetch.js';
import { freshKey, validModel } from '../helpers/model.js';

/** A client whose fetch and rate limiter record use, to prove nothing is sent and no slot is taken. */
function spiedClient() {
  const { fetch, calls } = recordingFetch();
  const acquired: string[] = [];
  const rateLimiter: RateLimiter = { acquire: async (id) => void acquired.push(id) };
  return {
    client: new ServiceClient({ apiKey: freshKey(), baseUrl: 'https://s.test/api', fetch, rateLimiter }),
    calls,
    acquired,
  };
}

async function validationErrorOf(model: unknown, docHashId = 'doc'): Promise<ValidationError> {
  const { client, calls, acquired } = spiedClient();
  const error = await client.createEwayBill(docHashId, model as EwayBillModel).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ValidationError);
  expect(calls).toHaveLength(0);
  expect(acquired).toHaveLength(0);
  return error as ValidationError;
}

const fields = (error: ValidationError) => error.issues.map((issue) => issue.field);

describe('local validation before any request', () => {
  it('accepts a model that follows the spec, and sends it', async () => {
    const { client, calls, acquired } = spiedClient();
    await client.createEwayBill('doc', validModel());
    expect(calls).toHaveLength(1);
    expect(acquired).toHaveLength(1);
  });

  it('lists every missing required field with its path, and sends nothing', async () => {
    const { supply_type, transport_mode, dispatch_to, ...rest } = validModel();
    const { city, ...address } = dispatch_to;
    const error = await validationErrorOf({ ...rest, dispatch_to: address });
    expect(fields(error).sort()).toEqual(['dispatch_to.city', 'supply_type', 'transport_mode']);
    expect(error.message).toMatch(/^Invalid e-way bill model: 3 problems\n/);
    expect(error.message).toContain('dispatch_to.city: Required');
    expect(error.code).toBe('VALIDATION_ERROR');
  });

  it.each([
    ['supply_type', { supply_type: 'outward' }],
    ['sub_supply_type', { sub_supply_type: 'Job work' }],
    ['transport_mode', { transport_mode: 'road' }],
    ['vehicle_type', { vehicle_type: 'ODC' }],
    ['transaction_type', { transaction_type: 'Bill To Ship To' }],
  ])('rejects a value outside the list of %s and shows what it got', async (field, patch) => {
    const error = await validationErrorOf({ ...validModel(), ...patch });
    expect(fields(error)).toEqual([field]);
    expect(error.issues[0]?.message).toContain(`got '${Object.values(patch)[0]}'`);
  });

  it("rejects 'Delhi' for 'DELHI' and 'USA' for 'United States', with a short message", async () => {
    const model = validModel();
    const error = await validationErrorOf({
      ...model,
      dispatch_from: { ...model.dispatch_from, state: 'Delhi' },
      dispatch_to: { ...model.dispatch_to, state: 'OTHER TERRITORY', country: 'USA' },
    });
    expect(fields(error)).toEqual(['dispatch_from.state', 'dispatch_to.country']);
    expect(error.issues[0]?.message).toMatch(/^Expected one of 39 allowed values, spelled exactly .*; got 'Delhi'$/);
    expect(error.issues[1]?.message).toMatch(/^Expected one of 194 allowed values/);
  });

  it.each([-1, 1_000_000, 1.5, '12', Number.NaN])(
    'rejects addr_id %j (an integer from 0 to 999999 is required)',
    async (addrId) => {
      const model = validModel();
      const error = await validationErrorOf({ ...model, dispatch_from: { ...model.dispatch_from, addr_id: addrId } });
      expect(fields(error)).toEqual(['dispatch_from.addr_id']);
    },
  );

  it.each([0, 999_999])('accepts addr_id %i at the edge of the range', async (addrId) => {
    const model = validModel();
    expect(
      EwayBillModelSchema.safeParse({ ...model, dispatch_from: { ...model.dispatch_from, addr_id: addrId } }).success,
    ).toBe(true);
  });

  it.each(['31-02-2026', '29-02-2025', '2026-11-21', '1-1-2026', '00-01-2026', '21/11/2026', ''])(
    'rejects transporter_doc_date %j (a real DD-MM-YYYY date is required)',
    async (date) => {
      const error = await validationErrorOf({ ...validModel(), transporter_doc_date: date });
      expect(fields(error)).toEqual(['transporter_doc_date']);
      expect(error.issues[0]?.message).toMatch(/DD-MM-YYYY/);
    },
  );

  it.each(['Bill To - Ship To', 'Combination of 2 and 3'])(
    'requires ship_to_gstin when transaction_type is %j',
    async (type) => {
      const error = await validationErrorOf({ ...validModel(), transaction_type: type });
      expect(fields(error)).toEqual(['ship_to_gstin']);
      expect(error.issues[0]?.message).toMatch(/Required when transaction_type is/);
    },
  );

  it.each([
    ['an empty string', '', /not an empty string/],
    ['null', null, /Required when transaction_type is|expected string/i],
    ['zero', 0, /expected string/i],
  ])("reports ship_to_gstin given as %s for 'Bill To - Ship To' once", async (_label, value, message) => {
    const error = await validationErrorOf({
      ...validModel(),
      transaction_type: 'Bill To - Ship To',
      ship_to_gstin: value,
    });
    expect(fields(error)).toEqual(['ship_to_gstin']);
    expect(error.issues[0]?.message).toMatch(message);
  });

  it('lists a missing ship_to_gstin together with problems in other fields', async () => {
    const error = await validationErrorOf({
      ...validModel(),
      transaction_type: 'Bill To - Ship To',
      transport_mode: 'road',
    });
    expect(fields(error).sort()).toEqual(['ship_to_gstin', 'transport_mode']);
  });

  it("does not require ship_to_gstin for 'Regular' or 'Bill From - Dispatch From'", () => {
    for (const type of ['Regular', 'Bill From - Dispatch From'] as const) {
      expect(EwayBillModelSchema.safeParse({ ...validModel(), transaction_type: type }).success).toBe(true);
    }
  });

  it('reports a misspelt field name instead of dropping it silently', async () => {
    const error = await validationErrorOf({ ...validModel(), vehicle_no: 'MH12AB1234' });
    expect(error.issues[0]?.message).toMatch(/vehicle_no/);
  });

  it.each([
    ['', /must not be empty/],
    ['   ', /must not be empty/],
    ['..', /cannot be/],
    [null, /must be a string; got null/],
    [42, /must be a string; got number/],
  ])('rejects the docHashId %j and sends nothing', async (docHashId, message) => {
    const error = await validationErrorOf(validModel(), docHashId as string);
    expect(fields(error)).toEqual(['docHashId']);
    expect(error.message).toMatch(message);
  });

  it('lists a bad docHashId and a bad model together', async () => {
    const error = await validationErrorOf({ ...validModel(), transport_mode: 'road' }, '');
    expect(fields(error)).toEqual(['docHashId', 'transport_mode']);
    expect(error.message).toMatch(/^Invalid e-way bill request: 2 problems/);
  });

  it('rejects a model that is not an object', async () => {
    const error = await validationErrorOf(null);
    expect(fields(error)).toEqual(['(root)']);
  });
});

describe('the schema holds the spec and nothing more (issue 12)', () => {
  it('accepts what only the portal refuses: an empty or foreign PIN code, a GSTIN with a wrong check character', () => {
    const to = validModel().dispatch_to;
    const portalOnly: Partial<EwayBillModel>[] = [
      { dispatch_to: { ...to, pincode: '' } },
      { dispatch_to: { ...to, pincode: '41100' } },
      { dispatch_to: { ...to, state: 'BIHAR' } },
      { supply_type: 'Inward', sub_supply_type: 'Export' },
      { vehicle_type: 'Over Dimensional Cargo', transport_mode: 'Air' },
      { transaction_type: 'Bill To - Ship To', ship_to_gstin: '29AABCT1332L000' } as Partial<EwayBillModel>,
      { transaction_type: 'Regular', ship_to_gstin: '9917SGP29001OST' } as Partial<EwayBillModel>,
    ];
    for (const overrides of portalOnly) {
      const parsed = EwayBillModelSchema.safeParse(validModel(overrides));
      expect(parsed.success, JSON.stringify(overrides)).toBe(true);
    }
  });

  it('still refuses what the spec forbids: a ship_to_gstin that is not 15 upper-case alphanumerics', () => {
    for (const ship_to_gstin of ['27AAPFU0939F1Z', '27aapfu0939f1zv', 'URP ', '']) {
      const model = validModel({ transaction_type: 'Bill To - Ship To', ship_to_gstin } as Partial<EwayBillModel>);
      expect(EwayBillModelSchema.safeParse(model).success, ship_to_gstin).toBe(false);
    }
  });
});

describe('the spec lists', () => {
  it('hold every state and country of the spec, spelled exactly', () => {
    expect(STATES).toHaveLength(39);
    expect(STATES).toContain('LADAKH(NEWLYADDED)');
    expect(STATES).toContain('LADAKH(NEWLY ADDED)');
    expect(STATES).toContain('ANDHRAPRADESH(BEFOREADDED)');
    expect(STATES).toContain('ANDHRA PRADESH');
    expect(COUNTRIES).toHaveLength(194);
    expect(COUNTRIES).toContain('Congo, Democratic Republic of the');
    expect(new Set(COUNTRIES).size).toBe(194);
  });
});

describe('dates', () => {
  it('checks DD-MM-YYYY calendar dates, leap years included', () => {
    expect(isServiceDate('29-02-2024')).toBe(true);
    expect(isServiceDate('29-02-2100')).toBe(false);
    expect(isServiceDate('31-04-2026')).toBe(false);
  });

  it('agrees with the calendar of Date on every day 28–32 of every month of 1899–2101 (1900, 2000 and 2100 included)', () => {
    const pad = (n: number, width = 2) => String(n).padStart(width, '0');
    let checked = 0;
    for (let year = 1899; year <= 2101; year++) {
      for (let month = 1; month <= 12; month++) {
        const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
        for (let day = 28; day <= 32; day++) {
          expect(isServiceDate(`${pad(day)}-${pad(month)}-${year}`), `${day}-${month}-${year}`).toBe(day <= last);
          checked++;
        }
      }
    }
    expect(checked).toBe(203 * 12 * 5);
  });

  it('formats a Date as the calendar day in India', () => {
    expect(formatServiceDate(new Date('2026-11-21T18:29:59Z'))).toBe('21-11-2026');
    expect(formatServiceDate(new Date('2026-11-21T18:30:00Z'))).toBe('22-11-2026');
  });
});
