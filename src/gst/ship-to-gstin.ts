import { gstinCheckCharacter } from './check-character.js';
import { checkGstin } from './gstin.js';
import { stateFromCode } from './state-codes.js';

/** The value of `ship_to_gstin` for a consignee without GST registration. */
export const UNREGISTERED_PERSON = 'URP';

// Registrations other than the regular PAN-based one, by their published layouts. They share the 15-character length
// and the mod-36 check character, so a typo is still caught; nothing looser than these layouts is let through.
const OTHER_REGISTRATIONS: readonly RegExp[] = [
  /^\d{4}[A-Z]{3}\d{5}[UO]N[0-9A-Z]$/, // UIN: embassies, UN bodies (state, year, 'UNO'/'UNI'-like code, serial, 'UN'/'ON')
  /^\d{2}[A-Z]{4}\d{5}[A-Z][1-9A-Z]D[0-9A-Z]$/, // TDS: state, TAN, entity number, 'D'
  /^\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z]C[0-9A-Z]$/, // TCS (e-commerce operators): state, PAN, entity number, 'C'
];

/** Whether `value` has the layout of a UIN, TDS or TCS registration, with a valid state code and check character. */
function isOtherRegistration(value: string): boolean {
  return (
    OTHER_REGISTRATIONS.some((layout) => layout.test(value)) &&
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
