import { gstinCheckCharacter } from './check-character.js';
import { checkGstin } from './gstin.js';
import { stateFromCode } from './state-codes.js';

/** The value of `ship_to_gstin` for a consignee without GST registration. */
export const UNREGISTERED_PERSON = 'URP';

// Other registrations than the regular PAN-based one (UIN of embassies and UN bodies, TAN-based TDS registrations,
// e-commerce operators' TCS ids, non-resident ids) share the 15-character shape and the mod-36 check character.
const OTHER_REGISTRATION = /^\d{2}[0-9A-Z]{12}[0-9A-Z]$/;

/** Whether `value` has the shape of a non-regular GST registration with a valid state code and check character. */
function isOtherRegistration(value: string): boolean {
  return (
    OTHER_REGISTRATION.test(value) &&
    stateFromCode(value.slice(0, 2)) !== undefined &&
    gstinCheckCharacter(value.slice(0, 14)) === value.charAt(14)
  );
}

/**
 * What is wrong with a `ship_to_gstin`, or `undefined` when it is `'URP'` or a valid GSTIN.
 * A consignee may hold a registration other than the regular PAN-based one (a UIN, a TDS or TCS registration):
 * those are accepted when their state code and check character are right, so a typo is still caught.
 * Used by the model's schema, so the client's local validation names the field.
 */
export function shipToGstinProblem(value: string): string | undefined {
  if (value === UNREGISTERED_PERSON) return undefined;
  if (value === '') return `Expected '${UNREGISTERED_PERSON}' or a valid GSTIN, not an empty string`;
  if (value.trim().toUpperCase() === UNREGISTERED_PERSON) {
    return `Expected '${UNREGISTERED_PERSON}' (in upper case, without spaces) or a valid GSTIN`;
  }
  const check = checkGstin(value);
  if (check.valid) return undefined;
  if (check.problem.kind === 'structure' && isOtherRegistration(value)) return undefined;
  return `Expected '${UNREGISTERED_PERSON}' or a valid GSTIN. ${check.problem.message}`;
}
