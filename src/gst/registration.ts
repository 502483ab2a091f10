import { checkCharacterOf } from './check-character.js';
import { checkGstin } from './gstin.js';
import { stateOfGstinCode } from './state-codes.js';

/** The kinds of GST registration whose identifiers share the GSTIN's 15 characters and mod-36 check character. */
export type RegistrationKind = 'regular' | 'government' | 'un-body' | 'tds' | 'tcs' | 'oidar' | 'non-resident';

// The published layouts of each kind, as a widely deployed GST application encodes them (resilient-tech/india-compliance,
// india_compliance/public/js/regex_constants.js, "Copied from india_compliance/gst_india/constants"). The regular layout
// there allows characters other than 'Z' in position 14; `checkGstin` keeps the stricter 'Z' and is tried first,
// and the specific layouts are tried before the looser regular one.
const LAYOUTS: readonly (readonly [RegistrationKind, RegExp])[] = [
  ['government', /^\d{2}[A-Z]{4}\d{5}[A-Z]\dZ\d$/],
  ['un-body', /^\d{4}[A-Z]{3}\d{5}[UO]N[0-9A-Z]$/],
  ['tds', /^\d{2}[A-Z]{4}[0-9A-Z]\d{4}[A-Z][1-9A-Z]D[0-9A-Z]$/],
  ['tcs', /^\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z]C[0-9A-Z]$/],
  ['oidar', /^99\d{2}[A-Z]{3}\d{5}OS[0-9A-Z]$/],
  ['non-resident', /^\d{4}[A-Z]{3}\d{5}NR[0-9A-Z]$/],
  // Last: its position 14 also takes 'D', so a PAN-based TDS registration would match it.
  ['regular', /^\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z][Z1-9ABD-J][0-9A-Z]$/],
];

// Registrations made by the centre for those outside India (OIDAR, non-resident) carry the code 99, not a state's.
const CENTRE_CODE = '99';

/** The answer of {@link checkRegistration}. */
export type RegistrationCheck =
  | { readonly valid: true; readonly kind: RegistrationKind }
  | { readonly valid: false; readonly message: string; readonly expected?: string };

/**
 * Checks a 15-character identifier against the portal's rules for a GST registration: a known layout (regular,
 * government department, UN body or embassy, TDS, TCS, OIDAR, non-resident), a known state code (or 99 for OIDAR and
 * non-resident registrations), and the mod-36 check character. Never throws.
 * @example checkRegistration('9917SGP29001OST'); // { valid: true, kind: 'oidar' }
 */
export function checkRegistration(value: string): RegistrationCheck {
  const regular = checkGstin(value);
  if (regular.valid) return { valid: true, kind: 'regular' };
  if (regular.problem.kind === 'type' || regular.problem.kind === 'length' || regular.problem.kind === 'case') {
    return { valid: false, message: regular.problem.message };
  }
  const layout = LAYOUTS.find(([, pattern]) => pattern.test(value));
  if (layout === undefined) {
    return {
      valid: false,
      message: `${regular.problem.message}, and it has no other registration's layout (UN body, TDS, TCS, OIDAR, non-resident)`,
    };
  }
  const [kind] = layout;
  const code = value.slice(0, 2);
  const centre = kind === 'oidar' || kind === 'non-resident';
  if (!(centre && code === CENTRE_CODE) && stateOfGstinCode(code) === undefined) {
    return { valid: false, message: `'${code}' is not a GST state code (01–38 except 25, 97, or 99 for OIDAR)` };
  }
  const expected = checkCharacterOf(value.slice(0, 14));
  if (value.charAt(14) !== expected) {
    return {
      valid: false,
      expected,
      message: `The check character (15th) should be '${expected}', not '${value.charAt(14)}', so at least one character is wrong`,
    };
  }
  return { valid: true, kind };
}
