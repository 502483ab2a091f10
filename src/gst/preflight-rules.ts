import type { EwayBillAddress, EwayBillModel } from '../model/schemas.js';
import { checkTransporterId } from './transporter-id.js';
import { isValidVehicleNumber, normalizeVehicleNumber } from './vehicle-number.js';

/** The ids of the preflight rules, stable across versions: filter or silence findings by them. */
export const PREFLIGHT_RULES = [
  'export-dispatch-to',
  'others-description',
  'transporter-doc-number',
  'indian-pincode',
  'transporter-id',
  'vehicle-number',
] as const;

/** A value of {@link PREFLIGHT_RULES}. */
export type PreflightRule = (typeof PREFLIGHT_RULES)[number];

/** Records one finding: the rule, the path of the field, and what is wrong. */
export type Report = (rule: PreflightRule, path: readonly string[], message: string) => void;

const given = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';
const quoted = (value: unknown): string => (typeof value === 'string' ? `'${value}'` : String(value));
const INDIAN_PINCODE = /^[1-9]\d{5}$/;
const EXPORT_STATE = 'OTHER TERRITORY';
const EXPORT_PINCODE = '999999';

// The model reaches preflight unchecked when a caller runs it on raw ERP data, so every read tolerates a missing part.
export type LooseModel = Partial<Omit<EwayBillModel, 'dispatch_from' | 'dispatch_to'>> & {
  dispatch_from?: Partial<EwayBillAddress>;
  dispatch_to?: Partial<EwayBillAddress>;
};

/** Every rule, in the order of {@link PREFLIGHT_RULES}. */
export const RULES: readonly ((model: LooseModel, report: Report) => void)[] = [
  (model, report) => {
    if (model.sub_supply_type !== 'Export') return;
    const { state, pincode } = model.dispatch_to ?? {};
    if (state !== EXPORT_STATE) {
      report(
        'export-dispatch-to',
        ['dispatch_to', 'state'],
        `An export goes to '${EXPORT_STATE}'; got ${quoted(state)}`,
      );
    }
    if (pincode !== EXPORT_PINCODE) {
      const message = `An export goes to PIN code '${EXPORT_PINCODE}'; got ${quoted(pincode)}`;
      report('export-dispatch-to', ['dispatch_to', 'pincode'], message);
    }
  },
  (model, report) => {
    if (model.sub_supply_type === 'Others' && !given(model.sub_supply_type_description)) {
      const message = "Required when sub_supply_type is 'Others': a description of the supply";
      report('others-description', ['sub_supply_type_description'], message);
    }
  },
  (model, report) => {
    if (model.transport_mode === undefined || model.transport_mode === 'Road') return;
    if (!given(model.transporter_doc_number)) {
      const message = `Required when transport_mode is '${model.transport_mode}': the railway receipt, airway bill or bill of lading number`;
      report('transporter-doc-number', ['transporter_doc_number'], message);
    }
  },
  (model, report) => {
    for (const side of ['dispatch_from', 'dispatch_to'] as const) {
      const address = model[side];
      if (address?.country !== 'India' || INDIAN_PINCODE.test(String(address.pincode))) continue;
      const message = `An Indian PIN code is 6 digits and does not start with 0; got ${quoted(address.pincode)}`;
      report('indian-pincode', [side, 'pincode'], message);
    }
  },
  (model, report) => {
    if (!given(model.transporter_id)) return;
    const check = checkTransporterId(model.transporter_id);
    if (!check.valid) report('transporter-id', ['transporter_id'], check.message);
  },
  (model, report) => {
    if (model.transport_mode !== 'Road' || !given(model.vehicle_number)) return;
    const canonical = normalizeVehicleNumber(model.vehicle_number);
    if (!isValidVehicleNumber(canonical)) {
      const message =
        `${quoted(model.vehicle_number)} is not in a format the portal accepts, such as MH12AB1234, KA01A1234 or ` +
        'DL01C1234 (a one-digit district takes a leading 0), or TM… for a temporary number';
      report('vehicle-number', ['vehicle_number'], message);
    } else if (canonical !== model.vehicle_number) {
      // The value is sent as written; the portal's format errors (codes 225 and 355) are the risk of anything else.
      const message =
        `${quoted(model.vehicle_number)} is sent as written, and the portal expects vehicle numbers in upper case ` +
        `without spaces, hyphens, dots or slashes: write it as ${canonical}`;
      report('vehicle-number', ['vehicle_number'], message);
    }
  },
];
