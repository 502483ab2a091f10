import { checkGstin } from './gstin.js';
import { stateFromCode } from './state-codes.js';

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
// like GSTINs, but does not keep their check character valid, so none is checked here.
const TRANSIN_SHAPE = /^(\d{2})[A-Z]{5}\d{4}[A-Z][0-9A-Z]{3}$/;

/**
 * Checks a `transporter_id` without throwing. It may be a GSTIN (checked in full, check character included), or a
 * TRANSIN or common enrolment number: 15 characters, a GST state code (or 88 for common enrolment), a PAN, and three
 * more characters. The portal does not keep a valid check character in TRANSINs (a published valid TRANSIN,
 * 29AAFCA7488L1Z0, fails it, and common enrolment numbers keep the check character of the GSTIN they were made
 * from), so a value with a wrong check character but the right shape is accepted as a TRANSIN.
 * @example checkTransporterId('88AABFG1694H1ZP'); // { valid: true, kind: 'common-enrolment' }
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
  if (prefix !== undefined && stateFromCode(prefix) !== undefined) return { valid: true, kind: 'transin' };
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
