import { given, quoted, type RuleGroup } from './preflight-types.js';
import { checkTransporterId } from './transporter-id.js';
import { isValidVehicleNumber, normalizeVehicleNumber } from './vehicle-number.js';

// NIC's additional validations of 17-12-2024: by Rail, transDocNo is a 9-digit RR (railway receipt) or a 10-digit PWB
// (parcel way bill) number; anything else is refused with 4042 "Invalid RR number" (india-compliance issue #3929).
// GSTN's advisories (PMS, 04-10-2024; FOIS; leased wagons, 23-12-2024) mandate from 1 January 2025 that the number be
// entered with its system's prefix: P (PMS) and F (FOIS) with the originating station's code (PNZM2020-307306,
// FSJWT123456789), L for leased wagons (L123456789). Both forms pass: a false finding costs a partner a valid bill.
const RAIL_RECEIPT = /^(?:\d{9}|\d{10}|[PFL][A-Z]{0,5}\d[\d-]*\d)$/;

/** The rules about the transport: documents, transporter, vehicle. */
export const TRANSPORT_RULES: RuleGroup<
  'transporter-doc-number' | 'transporter-id' | 'vehicle-number' | 'odc-road-only' | 'road-transporter'
> = {
  'transporter-doc-number': {
    portalCodes: [394, 385, 4042, 823],
    check(model, report) {
      if (model.transport_mode === undefined || model.transport_mode === 'Road') return;
      if (!given(model.transporter_doc_number)) {
        const message = `Required when transport_mode is ${quoted(model.transport_mode)}: the railway receipt, airway bill or bill of lading number`;
        report(['transporter_doc_number'], message, [394, 385]);
      } else if (model.transport_mode === 'Rail' && !RAIL_RECEIPT.test(model.transporter_doc_number)) {
        const message =
          `By 'Rail', transporter_doc_number is the railway receipt: a 9-digit RR or a 10-digit PWB number, or ` +
          `one with its prefix (P or F and the station code, L for leased wagons: PNZM2020-307306, FSJWT123456789, ` +
          `L123456789); got ${quoted(model.transporter_doc_number)}`;
        report(['transporter_doc_number'], message, [4042, 823]);
      }
    },
  },
  'transporter-id': {
    portalCodes: [222],
    check(model, report) {
      if (!given(model.transporter_id)) return;
      const check = checkTransporterId(model.transporter_id);
      if (!check.valid) report(['transporter_id'], check.message);
    },
  },
  'vehicle-number': {
    portalCodes: [225, 355],
    check(model, report) {
      if (model.transport_mode !== 'Road' || !given(model.vehicle_number)) return;
      const canonical = normalizeVehicleNumber(model.vehicle_number);
      if (!isValidVehicleNumber(canonical)) {
        const message =
          `${quoted(model.vehicle_number)} is not in a format the portal accepts, such as MH12AB1234, KA01A1234, ` +
          'DL1CAB1234 or 22BH1234AB, or TR… for a temporary number';
        report(['vehicle_number'], message);
      } else if (canonical !== model.vehicle_number) {
        // The value is sent as written; the portal's format errors (codes 225 and 355) are the risk of anything else.
        // A valid number is at most 15 characters, so the canonical spelling is short enough to quote in full.
        const message =
          `${quoted(model.vehicle_number)} is sent as written, and the portal expects vehicle numbers in upper case ` +
          `without spaces, hyphens, dots or slashes: write it as ${canonical}`;
        report(['vehicle_number'], message);
      }
    },
  },
  'odc-road-only': {
    portalCodes: [634],
    check(model, report) {
      if (model.vehicle_type !== 'Over Dimensional Cargo' || model.transport_mode === undefined) return;
      if (model.transport_mode === 'Road') return;
      const message = `An Over Dimensional Cargo vehicle moves by 'Road' only; transport_mode is ${quoted(model.transport_mode)}`;
      report(['vehicle_type'], message);
    },
  },
  'road-transporter': {
    portalCodes: [619],
    check(model, report) {
      if (model.transport_mode !== 'Road' || given(model.vehicle_number) || given(model.transporter_id)) return;
      const message =
        "Transport by 'Road' needs a vehicle_number, or a transporter_id for a Part-A slip (the transporter adds " +
        'the vehicle later)';
      report(['transporter_id'], message);
    },
  },
};
