import { type PreflightRule, RULES_ORDER, type RuleDefinition } from './preflight-types.js';
import { ADDRESS_RULES } from './rules-address.js';
import { SUPPLY_RULES } from './rules-supply.js';
import { TRANSPORT_RULES } from './rules-transport.js';

export type { PreflightRule } from './preflight-types.js';
export { PREFLIGHT_RULES } from './preflight-types.js';

/**
 * Every rule, keyed by its id: the type requires a definition for each id of `PREFLIGHT_RULES` and each group's type
 * refuses an id that is not one, so a rule cannot be missing, misnamed, or matched to the wrong check by position.
 */
export const RULES: { readonly [K in PreflightRule]: RuleDefinition } = Object.freeze({
  ...ADDRESS_RULES,
  ...SUPPLY_RULES,
  ...TRANSPORT_RULES,
});

/** The portal codes each rule prevents, keyed by rule id (its findings cite the ones that apply). */
export const PREFLIGHT_RULE_PORTAL_CODES: { readonly [K in PreflightRule]: readonly number[] } = Object.freeze(
  Object.fromEntries(RULES_ORDER.map((id) => [id, RULES[id].portalCodes])) as {
    [K in PreflightRule]: readonly number[];
  },
);
