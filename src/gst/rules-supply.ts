import type { SubSupplyType } from '../model/enums.js';
import { given, quoted, type RuleGroup } from './preflight-types.js';
import { shipToGstinPortalProblem } from './ship-to-gstin.js';

// The portal's master of sub supply types per supply type (NIC e-way bill API, "Sub Supply Type" codes): 'Import'
// is inward-only, but the spec's list does not have it.
const SUB_SUPPLY_TYPES_OF = {
  Outward: [
    'Supply',
    'Export',
    'Job Work',
    'SKD/CKD/Lots',
    'Recipient Not Known',
    'For Own Use',
    'Exhibition or fairs',
    'Line Sales',
    'Others',
  ],
  Inward: [
    'Supply',
    'SKD/CKD/Lots',
    'Job Work Returns',
    'Sales Returns',
    'Exhibition or fairs',
    'For Own Use',
    'Others',
  ],
} as const satisfies Record<string, readonly SubSupplyType[]>;

const NO_SHIP_TO = { Regular: 616, 'Bill From - Dispatch From': 864 } as const;

/** The rules about the supply and the parties. */
export const SUPPLY_RULES: RuleGroup<
  'others-description' | 'ship-to-gstin' | 'ship-to-transaction-type' | 'supply-sub-supply'
> = {
  'others-description': {
    portalCodes: [377],
    check(model, report) {
      if (model.sub_supply_type === 'Others' && !given(model.sub_supply_type_description)) {
        report(
          ['sub_supply_type_description'],
          "Required when sub_supply_type is 'Others': a description of the supply",
        );
      }
    },
  },
  'ship-to-gstin': {
    portalCodes: [609],
    check(model, report) {
      if (typeof model.ship_to_gstin !== 'string') return;
      const problem = shipToGstinPortalProblem(model.ship_to_gstin);
      if (problem !== undefined) report(['ship_to_gstin'], problem);
    },
  },
  'ship-to-transaction-type': {
    portalCodes: [616, 864],
    check(model, report) {
      const type = model.transaction_type;
      if (!given(model.ship_to_gstin) || (type !== 'Regular' && type !== 'Bill From - Dispatch From')) return;
      const message = `Not sent with transaction_type '${type}': ship_to_gstin belongs to 'Bill To - Ship To' and 'Combination of 2 and 3'`;
      report(['ship_to_gstin'], message, [NO_SHIP_TO[type]]);
    },
  },
  'supply-sub-supply': {
    portalCodes: [202],
    check(model, report) {
      const { supply_type: supply, sub_supply_type: sub } = model;
      if (supply !== 'Outward' && supply !== 'Inward') return;
      const allowed: readonly string[] = SUB_SUPPLY_TYPES_OF[supply];
      if (typeof sub !== 'string' || allowed.includes(sub)) return;
      const message = `Sub supply type ${quoted(sub)} does not go with supply type '${supply}' (it takes ${allowed.map((t) => `'${t}'`).join(', ')})`;
      report(['sub_supply_type'], message);
    },
  },
};
