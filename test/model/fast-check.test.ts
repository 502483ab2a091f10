// Issue 29, item 8 (CPU per call): createEwayBill checks a model with the fast parser of the object schema once it is
// loaded (src/model/check.ts, src/model/fast-parse.ts), with the same verdict, output and issues as EwayBillModelSchema.
import { type EwayBillModel, ServiceClient } from 'invoicing-service-sdk';
import { EwayBillModelSchema } from 'invoicing-service-sdk/model';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkModel, modelCheckFast } from '../../src/model/check.js';
import { EwayBillModelObjectSchema } from '../../src/model/schemas.js';
import { recordingFetch } from '../helpers/fake-fetch.js';
import { freshKey, validModel } from '../helpers/model.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Loads the fast parser (the first check asks for it) and waits until it is in use. */
async function fastParser(): Promise<void> {
  checkModel(validModel());
  await vi.waitFor(() => expect(modelCheckFast()).toBe(true), { timeout: 10_000, interval: 5 });
}

/** What the schema's runtime parser says, as the client used to ask it. */
const bySchema = (model: unknown) => EwayBillModelSchema.safeParse(model, { reportInput: true });

/** The keys of an output, nested ones included, in order: a key kept with `undefined` counts. */
const keysOf = (value: unknown): unknown =>
  typeof value === 'object' && value !== null
    ? Object.entries(value).map(([key, inner]) => [key, keysOf(inner)])
    : typeof value;

/** A verdict as comparable data: success, the output as sent (its key order included) and its keys, the issues. */
const verdict = (result: ReturnType<typeof bySchema>) =>
  result.success
    ? { success: true, body: JSON.stringify(result.data), keys: keysOf(result.data) }
    : { success: false, issues: JSON.parse(JSON.stringify(result.error.issues)) as unknown };

/** Valid and invalid models: every field given a wrong value, dropped, or given an unknown neighbour. */
function corpus(): unknown[] {
  const base = validModel({
    vehicle_type: 'Regular',
    transporter_name: 'Deccan Roadways',
    transaction_type: 'Regular',
  }) as unknown as Record<string, unknown>;
  const models: unknown[] = [
    base,
    Object.fromEntries(Object.entries(base).reverse()),
    validModel(),
    validModel({ transaction_type: 'Bill To - Ship To', ship_to_gstin: 'URP' }),
    validModel({ transaction_type: 'Bill To - Ship To' }),
    validModel({ transaction_type: 'Combination of 2 and 3' }),
    validModel({ transaction_type: 'Bill To - Ship To', ship_to_gstin: '27AAPFU0939F1ZV' }),
    validModel({ ship_to_gstin: 'not a gstin' }),
    { ...base, ship_to_gstin: undefined, transaction_type: undefined },
    { ...base, vehicle_type: undefined },
    { ...base, dispatch_from: { ...(base.dispatch_from as object), addr_id: -0 } },
    { ...base, dispatch_from: { ...(base.dispatch_from as object), addr_id: 999_999 } },
    { ...base, dispatch_from: { ...(base.dispatch_from as object), addr_id: Number.NaN } },
    { ...base, dispatch_from: { ...(base.dispatch_from as object), addr_id: '1' } },
    { ...base, dispatch_from: [] },
    Object.assign(Object.create(null), base),
    JSON.parse(`{"__proto__": {"x": 1}, ${JSON.stringify(base).slice(1)}`),
    { ...base, extra: 1 },
    { ...base, dispatch_from: { ...(base.dispatch_from as object), extra: 'x' } },
    { ...base, dispatch_to: { ...(base.dispatch_to as object), addr_id: 1_000_000 } },
    { ...base, dispatch_to: { ...(base.dispatch_to as object), addr_id: 1.5 } },
    { ...base, dispatch_to: { ...(base.dispatch_to as object), addr_id: 0 } },
    { ...base, dispatch_to: { ...(base.dispatch_to as object), addr_id: -1 } },
    { ...base, dispatch_to: { ...(base.dispatch_to as object), addr_id: Number.POSITIVE_INFINITY } },
    { ...base, dispatch_to: { ...(base.dispatch_to as object), addr_id: 2 ** 53 + 2 } },
    { ...base, transporter_doc_date: '29-02-2024' },
    { ...base, transporter_doc_date: '01-13-2026' },
    { ...base, transporter_doc_date: 20_260_201 },
    { ...base, transporter_doc_date: new String('01-02-2026') },
    { ...base, dispatch_to: { ...(base.dispatch_to as object), state: 'ATLANTIS' } },
    { ...base, dispatch_to: null },
    { ...base, transporter_doc_date: '31-02-2026' },
    { ...base, transporter_doc_date: '29-02-2028' },
    { ...base, transporter_doc_date: '2026-02-01' },
    { ...base, supply_type: 'Sideways' },
    { ...base, vehicle_type: null },
    { ...base, transporter_id: 12 },
    null,
    undefined,
    'model',
    [],
    Object.assign(Object.create({ supply_type: 'Outward' }), { ...base, supply_type: undefined }),
  ];
  for (const key of Object.keys(base)) {
    const { [key]: _dropped, ...without } = base;
    models.push(without, { ...base, [key]: 42 }, { ...base, [key]: '' });
  }
  return models;
}

describe('the model check with the fast parser', () => {
  it('says what EwayBillModelSchema says, for valid and invalid models alike, key order of the body included', async () => {
    await fastParser();
    const models = corpus();
    expect(models.length).toBeGreaterThan(50);
    let accepted = 0;
    for (const model of models) {
      const checked = checkModel(model);
      expect(verdict(checked), JSON.stringify(model)).toEqual(verdict(bySchema(model)));
      if (!checked.success) continue;
      accepted += 1;
      // A copy, as zod's: a model the caller changes after the call is not what is sent.
      expect(checked.data).not.toBe(model);
      expect(checked.data.dispatch_from).not.toBe((model as EwayBillModel).dispatch_from);
    }
    expect(accepted).toBeGreaterThan(5);
  });

  it("checks the date's refine and the addresses' integer ids itself, not through zod's parser of the field", async () => {
    await fastParser();
    const { shape } = EwayBillModelObjectSchema._zod.def;
    const date = vi.spyOn(shape.transporter_doc_date._zod, 'run');
    const addrId = vi.spyOn(shape.dispatch_from._zod.def.shape.addr_id._zod, 'run');
    expect(checkModel(validModel()).success).toBe(true);
    expect(date).not.toHaveBeenCalled();
    expect(addrId).not.toHaveBeenCalled();
  });

  it("createEwayBill checks a valid model without zod's parser of the schema once the fast parser is loaded", async () => {
    await fastParser();
    const { fetch, calls } = recordingFetch();
    const client = new ServiceClient({
      apiKey: freshKey('fast-check'),
      baseUrl: 'https://s.test/api',
      fetch,
      rateLimiter: { acquire: async () => undefined },
    });
    const runtime = vi.spyOn(EwayBillModelSchema._zod, 'run');
    const model: EwayBillModel = validModel({ transaction_type: 'Bill To - Ship To', ship_to_gstin: 'URP' });
    await client.createEwayBill('doc-1', model);
    // Before: zod's parser of the schema ran for every call (1 here).
    expect(runtime).not.toHaveBeenCalled();
    expect(calls.map((call) => call.body)).toEqual([JSON.stringify(bySchema(model).data)]);
    // An invalid model still gets the schema's own issues, through its runtime parser.
    const invalid = { ...model, ship_to_gstin: undefined };
    const error = await client.createEwayBill('doc-2', invalid as EwayBillModel).catch((thrown: unknown) => thrown);
    expect(runtime).toHaveBeenCalled();
    expect(error).toMatchObject({ name: 'ValidationError' });
    expect(calls).toHaveLength(1);
  });
  it('knows every rule the schema adds to its object schema: one refinement, the ship-to GSTIN (check.ts runs it)', () => {
    // check.ts accepts what the object schema's fast parser accepts and then runs `shipToGstinMissing` itself: a rule
    // added to EwayBillModelSchema beyond it would be skipped by the fast path. This fails first, so check.ts is told.
    const checks = (EwayBillModelSchema as unknown as { _zod: { def: { checks?: unknown[] } } })._zod.def.checks;
    expect(checks).toHaveLength(1);
  });
  it('is asked for once by a burst of checks made before it is there', async () => {
    // Before: each check until the part was loaded added its own continuation (10,000 keys at once: 7.5 KiB per call).
    vi.resetModules();
    const fresh = (await import('../../src/model/check.js')) as typeof import('../../src/model/check.js');
    const model = validModel();
    for (let i = 0; i < 200; i++) expect(fresh.checkModel(model).success).toBe(true);
    expect(fresh.modelCheckRequests()).toBe(1);
    await vi.waitFor(() => expect(fresh.modelCheckFast()).toBe(true), { timeout: 10_000, interval: 5 });
    expect(fresh.checkModel(model).success).toBe(true);
    expect(fresh.modelCheckRequests()).toBe(1);
  });
  it('a model that cannot be read is a ValidationError, and the fast parser stays in use after it', async () => {
    await fastParser();
    const hostile = { ...validModel() };
    Object.defineProperty(hostile, 'vehicle_number', {
      enumerable: true,
      get() {
        throw new Error('no reading this');
      },
    });
    const client = new ServiceClient({
      apiKey: freshKey('fast-check-hostile'),
      baseUrl: 'https://s.test/api',
      fetch: async () => new Response('{}'),
      rateLimiter: { acquire: async () => undefined },
    });
    const error = await client.createEwayBill('doc-1', hostile as EwayBillModel).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ name: 'ValidationError' });
    expect(String((error as Error).message)).toContain('could not be read');
    // Before: one such model turned the fast parser off for the rest of the process.
    expect(modelCheckFast()).toBe(true);
  });
});
