import { pincodeStateCodes } from './pincode-states.js';
import { FOREIGN_PINCODE, type LooseModel, OTHER_TERRITORY, quoted, type RuleGroup, SIDES } from './preflight-types.js';
import { stateCode, stateFromCode } from './state-codes.js';

const INDIAN_PINCODE = /^[1-9]\d{5}$/;
const SHIP_TO_TYPES: readonly unknown[] = ['Bill To - Ship To', 'Combination of 2 and 3'];
// Andhra Pradesh before the 2014 division (28) held today's Andhra Pradesh (37) and Telangana (36).
const UNDIVIDED_ANDHRA: Readonly<Record<string, readonly string[]>> = { '28': ['36', '37'] };

/** Whether a PIN code whose directory states are `codes` fits the state with GST code `code`. */
const fits = (codes: readonly string[], code: string): boolean =>
  (UNDIVIDED_ANDHRA[code] ?? [code]).some((part) => codes.includes(part));

const isImport = (model: LooseModel): boolean => {
  const from = model.dispatch_from;
  return model.supply_type === 'Inward' && (from?.state === OTHER_TERRITORY || (from?.country ?? 'India') !== 'India');
};

/** The rules about addresses: exports, imports, PIN codes and states. */
export const ADDRESS_RULES: RuleGroup<'export-dispatch-to' | 'indian-pincode' | 'pincode-state' | 'country-state'> = {
  'export-dispatch-to': {
    portalCodes: [373, 374],
    check(model, report) {
      if (model.sub_supply_type !== 'Export') return;
      const { state, pincode, country } = model.dispatch_to ?? {};
      // An export may be shipped to the port of loading in India: the e-way bill covers the move to the port, and
      // its ship-to is then the port's Indian address (india-compliance #3850: Tuticorin port as ship-to; odoo PR
      // #279289: state 99 as ship-to refused with 372, fixed by sending the port's state; erpnext PR #23944: SEZ
      // supplies sent as Export). Such an address is checked as any Indian one (indian-pincode, pincode-state).
      if (country === 'India') return;
      if (state !== OTHER_TERRITORY) {
        report(['dispatch_to', 'state'], `An export goes to '${OTHER_TERRITORY}'; got ${quoted(state)}`, [373]);
      }
      if (pincode !== FOREIGN_PINCODE) {
        report(
          ['dispatch_to', 'pincode'],
          `An export goes to PIN code '${FOREIGN_PINCODE}'; got ${quoted(pincode)}`,
          [374],
        );
      }
    },
  },
  'indian-pincode': {
    portalCodes: [210, 214],
    check(model, report) {
      for (const side of SIDES) {
        const address = model[side];
        if (address?.country !== 'India' || INDIAN_PINCODE.test(String(address.pincode))) continue;
        const message = `An Indian PIN code is 6 digits and does not start with 0; got ${quoted(address.pincode)}`;
        report([side, 'pincode'], message, [side === 'dispatch_from' ? 210 : 214]);
      }
    },
  },
  'pincode-state': {
    portalCodes: [437, 436, 710, 858],
    check(model, report) {
      for (const side of SIDES) {
        const { country, state, pincode } = model[side] ?? {};
        if (country !== 'India' || typeof state !== 'string' || typeof pincode !== 'string') continue;
        const code = stateCode(state);
        if (!INDIAN_PINCODE.test(pincode) || code === undefined || state === OTHER_TERRITORY) continue;
        const directory = pincodeStateCodes(pincode);
        // Lenient where the directory is silent: a PIN code with no neighbour of its first three digits.
        if (directory === undefined || fits(directory, code)) continue;
        const others = directory.map((other) => stateFromCode(other) ?? other);
        const codes =
          side === 'dispatch_from'
            ? [437, 710]
            : SHIP_TO_TYPES.includes(model.transaction_type)
              ? [436, 858]
              : [436, 710];
        const message =
          `PIN code ${quoted(pincode)} is not in ${state} (India Post's directory puts it in ` +
          `${others.join(' or ')}): the portal checks the state against the PIN code`;
        report([side, 'pincode'], message, codes);
      }
    },
  },
  'country-state': {
    portalCodes: [373, 375, 376],
    check(model, report) {
      const exporting = model.sub_supply_type === 'Export';
      for (const side of SIDES) {
        const { country, state } = model[side] ?? {};
        const code = side === 'dispatch_to' ? 373 : 375;
        if (side === 'dispatch_from' && isImport(model) && country === 'India') {
          report([side, 'country'], "An import comes from a country other than India; got 'India'", [375]);
        } else if (country === 'India' && state === OTHER_TERRITORY) {
          const message = `'${OTHER_TERRITORY}' is the state of an address outside India; this address is in India`;
          report([side, 'state'], message, [code]);
        } else if (typeof country === 'string' && country !== 'India' && state !== OTHER_TERRITORY) {
          // An export's dispatch_to state is already reported by rule export-dispatch-to.
          if (side === 'dispatch_to' && exporting) continue;
          const message = `An address outside India (${quoted(country)}) has state '${OTHER_TERRITORY}'; got ${quoted(state)}`;
          report([side, 'state'], message, [code]);
        }
      }
      const from = model.dispatch_from;
      if (isImport(model) && from?.country !== 'India' && from?.pincode !== FOREIGN_PINCODE) {
        const message = `An import comes from PIN code '${FOREIGN_PINCODE}'; got ${quoted(from?.pincode)}`;
        report(['dispatch_from', 'pincode'], message, [376]);
      }
    },
  },
};
