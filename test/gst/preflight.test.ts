import { type EwayBillModel, ServiceClient, ValidationError } from 'invoicing-service-sdk';
import type { PreflightFinding } from 'invoicing-service-sdk/gst';
import { describe, expect, it } from 'vitest';
import { PREFLIGHT_MODES, PREFLIGHT_RULES, preflightError, preflightEwayBill } from '../../src/gst/index.js';
import { recordingFetch } from '../helpers/fake-fetch.js';
import { freshKey, validModel } from '../helpers/model.js';

const rulesOf = (model: EwayBillModel) => preflightEwayBill(model).map((finding) => `${finding.rule} ${finding.field}`);
const exportModel = (to: Partial<EwayBillModel['dispatch_to']> = {}) =>
  validModel({
    sub_supply_type: 'Export',
    dispatch_to: {
      ...validModel().dispatch_to,
      state: 'OTHER TERRITORY',
      country: 'United States',
      pincode: '999999',
      ...to,
    },
  });

describe('preflightEwayBill', () => {
  it('finds nothing in a model that follows every rule', () => {
    expect(preflightEwayBill(validModel())).toEqual([]);
    expect(preflightEwayBill(exportModel())).toEqual([]);
  });

  it("requires an export to go to 'OTHER TERRITORY' and PIN code 999999", () => {
    expect(rulesOf(exportModel({ state: 'MAHARASHTRA', pincode: '400001' }))).toEqual([
      'export-dispatch-to dispatch_to.state',
      'export-dispatch-to dispatch_to.pincode',
    ]);
    const [finding] = preflightEwayBill(exportModel({ pincode: '10001' }));
    expect(finding).toEqual({
      rule: 'export-dispatch-to',
      field: 'dispatch_to.pincode',
      path: ['dispatch_to', 'pincode'],
      message: "An export goes to PIN code '999999'; got '10001'",
      portalCodes: [374],
    });
  });

  it('finds nothing in an export shipped to its port of loading in India (issue 20 item 1)', () => {
    // india-compliance #3850: an export e-way bill generated with the Tuticorin port (Thoothukudi, Tamil Nadu) as
    // the ship-to address; odoo PR #279289: the portal refused state 99 as ship-to (372) and took the port's state.
    const tuticorin = { state: 'TAMIL NADU', country: 'India', pincode: '628001' } as const;
    expect(preflightEwayBill(exportModel(tuticorin))).toEqual([]);
    // erpnext PR #23944: a supply to an SEZ unit sent as Export, to the unit's Indian address (Gujarat, 382481).
    expect(preflightEwayBill(exportModel({ state: 'GUJARAT', country: 'India', pincode: '382481' }))).toEqual([]);
    // An export abroad still goes to OTHER TERRITORY and 999999.
    expect(rulesOf(exportModel({ state: 'TAMIL NADU', pincode: '628001' }))).toEqual([
      'export-dispatch-to dispatch_to.state',
      'export-dispatch-to dispatch_to.pincode',
    ]);
  });

  it("requires a description for sub supply type 'Others'", () => {
    expect(rulesOf(validModel({ sub_supply_type: 'Others' }))).toEqual([
      'others-description sub_supply_type_description',
    ]);
    expect(rulesOf(validModel({ sub_supply_type: 'Others', sub_supply_type_description: '  ' }))).toHaveLength(1);
    expect(rulesOf(validModel({ sub_supply_type: 'Others', sub_supply_type_description: 'Samples' }))).toEqual([]);
  });

  it('requires a transporter document number for transport other than Road', () => {
    for (const mode of ['Rail', 'Air', 'Ship or Ship Cum Road/Rail'] as const) {
      expect(rulesOf(validModel({ transport_mode: mode })), mode).toEqual([
        'transporter-doc-number transporter_doc_number',
      ]);
      expect(rulesOf(validModel({ transport_mode: mode, transporter_doc_number: '123456789' })), mode).toEqual([]);
    }
    expect(rulesOf(validModel({ transport_mode: 'Road' }))).toEqual([]);
  });

  it('requires an Indian PIN code of 6 digits that does not start with 0', () => {
    const from = validModel().dispatch_from;
    for (const pincode of ['041100', '41100', '4110011', '411 001', 'ABCDEF']) {
      expect(rulesOf(validModel({ dispatch_from: { ...from, pincode } })), pincode).toEqual([
        'indian-pincode dispatch_from.pincode',
      ]);
    }
    const nepal = { ...from, country: 'Nepal', state: 'OTHER TERRITORY', pincode: '44600' } as const;
    expect(rulesOf(validModel({ dispatch_from: nepal }))).toEqual([]);
  });

  it('requires a transporter_id, when given, to be a GSTIN or a TRANSIN', () => {
    expect(rulesOf(validModel({ transporter_id: '29AAGCB7383J1Z4' }))).toEqual([]);
    expect(rulesOf(validModel({ transporter_id: '88AABFG1694H1ZP' }))).toEqual([]);
    expect(rulesOf(validModel({ transporter_id: '' }))).toEqual([]);
    const [finding] = preflightEwayBill(validModel({ transporter_id: '29AAGCB7383J1Z' }));
    expect(finding).toMatchObject({ rule: 'transporter-id', field: 'transporter_id' });
    expect(finding?.message).toContain('15 characters');
  });

  it('requires a Road vehicle number in a format the portal accepts, and ignores it for other modes', () => {
    expect(rulesOf(validModel({ vehicle_number: 'DL1234' }))).toEqual(['vehicle-number vehicle_number']);
    expect(preflightEwayBill(validModel({ vehicle_number: 'DL1234' }))[0]?.message).toContain('DL1CAB1234');
    expect(rulesOf(validModel({ vehicle_number: 'MH12AB1234' }))).toEqual([]);
    // Delhi's one-digit district, as its plates carry it (issue 20 item 5).
    expect(rulesOf(validModel({ vehicle_number: 'DL1CAB1234' }))).toEqual([]);
    expect(
      rulesOf(validModel({ transport_mode: 'Rail', transporter_doc_number: '123456789', vehicle_number: 'X' })),
    ).toEqual([]);
  });

  it.each([
    ['mh-12 ab 1234', 'MH12AB1234'],
    ['mh12ab1234', 'MH12AB1234'],
    [' KA01A1234', 'KA01A1234'],
    ['22 BH 1234 AB', '22BH1234AB'],
    ['DL.01/C.1234', 'DL01C1234'],
  ])('reports %j, which is sent as written, with its canonical spelling %s', (written, canonical) => {
    const findings = preflightEwayBill(validModel({ vehicle_number: written }));
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ rule: 'vehicle-number', field: 'vehicle_number' });
    expect(findings[0]?.message).toContain(`write it as ${canonical}`);
    expect(findings[0]?.message).toContain(`'${written}'`);
  });

  it('does not change the vehicle number the client sends, and blocks it in strict mode', async () => {
    const { fetch, calls } = recordingFetch();
    const warned: PreflightFinding[] = [];
    const options = { baseUrl: 'https://s.test/api', fetch, rateLimiter: { acquire: async () => {} } };
    const warn = new ServiceClient({ ...options, apiKey: freshKey(), onWarning: (f) => void warned.push(f) });
    await warn.createEwayBill('doc', validModel({ vehicle_number: 'mh-12 ab 1234' }));
    expect(JSON.parse(calls[0]?.body ?? '{}').vehicle_number).toBe('mh-12 ab 1234');
    expect(warned.map((finding) => finding.rule)).toEqual(['vehicle-number']);

    const strict = new ServiceClient({ ...options, apiKey: freshKey(), preflight: 'strict' });
    const error = await strict.createEwayBill('doc', validModel({ vehicle_number: 'mh12ab1234' })).catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toContain('write it as MH12AB1234');
    expect(calls).toHaveLength(1);
  });

  it('reports findings in the order of PREFLIGHT_RULES, and never throws on a malformed model', () => {
    const broken = validModel({
      sub_supply_type: 'Export',
      transport_mode: 'Air',
      transporter_id: 'nope',
      dispatch_to: { ...validModel().dispatch_to, country: 'United States', pincode: '012345' },
    });
    const order = preflightEwayBill(broken).map((finding) => PREFLIGHT_RULES.indexOf(finding.rule));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order.length).toBeGreaterThanOrEqual(4);
    expect(() => preflightEwayBill({ sub_supply_type: 'Export' } as unknown as EwayBillModel)).not.toThrow();
    expect(() => preflightEwayBill(null as unknown as EwayBillModel)).not.toThrow();
  });
});

describe('preflightError (strict mode)', () => {
  it('is undefined when there is nothing to report', () => {
    expect(preflightError([])).toBeUndefined();
  });

  it('turns findings into a ValidationError that names each field and rule', () => {
    const error = preflightError(preflightEwayBill(exportModel({ state: 'KERALA', pincode: '682001' })));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error?.issues.map((issue) => issue.field)).toEqual(['dispatch_to.state', 'dispatch_to.pincode']);
    expect(error?.message).toContain('2 problems');
    expect(error?.message).toContain('[preflight rule export-dispatch-to; portal 373]');
    expect(error?.message).toContain('[preflight rule export-dispatch-to; portal 374]');
  });

  it('offers the three modes', () => {
    expect(PREFLIGHT_MODES).toEqual(['off', 'warn', 'strict']);
  });
});
