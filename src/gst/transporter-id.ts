import { checkGstin } from './gstin.js';
import { stateOfGstinCode } from './state-codes.js';

/**
 * What a valid `transporter_id` is:
 * - `'gstin'`: the transporter's GSTIN (a GST-registered transporter);
 * - `'transin'`: a TRANSIN, the id the e-way bill portal gives an enrolled transporter without GST registration;
 * - `'common-enrolment'`: the number of a transporter enrolled once for all its GSTINs, which starts with 88.
 */
export type TransporterIdKind = 'gstin' | 'transin' | 'common-enrolment';

/** The answer of {@link checkTransporterId}. */
export type TransporterIdCheck =
  | { readonly valid: true; readonly kind: TransporterIdKind }
  | { readonly valid: false; readonly message: string };

const COMMON_ENROLMENT_PREFIX = '88';
// Two digits, a PAN (5 letters, 4 digits, 1 letter), three more characters. The portal derives TRANSINs from the PAN
// like GSTINs; only a value with a GSTIN's full layout has its check character checked (see checkTransporterId).
const TRANSIN_SHAPE = /^(\d{2})[A-Z]{5}\d{4}[A-Z][0-9A-Z]{3}$/;

/**
 * Checks a `transporter_id` without throwing. It may be a GSTIN (checked in full, check character included), a
 * TRANSIN, or a common enrolment number (88, a PAN, three more characters).
 *
 * A value with a GSTIN's full layout (state code, PAN, entity number, 'Z') but a wrong check character is refused:
 * it is far more likely a GSTIN with a typo than a TRANSIN (single-character typos of valid GSTINs used to pass as
 * TRANSINs; see docs/gst-checks.md for the figures). Other 15-character values with a state code and a PAN in
 * positions 3–12 pass as TRANSINs, whose check character is not checked. Common enrolment numbers keep the check
 * character of the GSTIN they were made from, so theirs is not checked either.
 * @example checkTransporterId('88AABFG1694H1ZP'); // { valid: true, kind: 'common-enrolment' }
 * @example checkTransporterId('29AAGCB7383J1Z5'); // { valid: false, message: 'The check character (15th) should be …' }
 */
export function checkTransporterId(value: unknown): TransporterIdCheck {
  const gstin = checkGstin(value);
  if (gstin.valid) return { valid: true, kind: 'gstin' };
  const { problem } = gstin;
  if (problem.kind !== 'structure' && problem.kind !== 'state-code' && problem.kind !== 'check-character') {
    return {
      valid: false,
      message: `A transporter id (GSTIN or TRANSIN) is 15 characters in upper case: ${problem.message}`,
    };
  }
  const match = TRANSIN_SHAPE.exec(value as string);
  const prefix = match?.[1];
  if (prefix === COMMON_ENROLMENT_PREFIX) return { valid: true, kind: 'common-enrolment' };
  if (problem.kind === 'check-character') {
    return {
      valid: false,
      message:
        `This has a GSTIN's layout but not its check character, so it is likely a GSTIN with a typo: ${problem.message}. ` +
        '(A few TRANSINs were issued with such a check character; if this one is, ignore this warning.)',
    };
  }
  if (prefix !== undefined && stateOfGstinCode(prefix) !== undefined) return { valid: true, kind: 'transin' };
  return {
    valid: false,
    message: `Neither a GSTIN nor a TRANSIN (2-digit state code or 88, a PAN, 3 more characters): ${problem.message}`,
  };
}

/**
 * Whether `value` is a valid `transporter_id`: a GSTIN, a TRANSIN or a common enrolment number (see
 * {@link checkTransporterId}).
 * @example isValidTransporterId('29AAGCB7383J1Z4'); // true (a GSTIN)
 */
export function isValidTransporterId(value: unknown): boolean {
  return checkTransporterId(value).valid;
}
