import { describeValue } from './describe.js';
import { usePortalDescriptions } from './portal-descriptions.js';
import { PORTAL_ERROR_CODES, type PortalErrorCategory } from './portal-error-codes.js';

// The portal's error catalogue, read by src/errors (PortalError) and re-exported by src/gst (the public
// describePortalError): it lives here so that src/errors imports nothing from src/gst.

/** What the portal's published list says about one of its error codes. */
export interface PortalErrorDescription {
  /** The portal's numeric code. */
  readonly code: number;
  /** The portal's own description, worded as published; `undefined` for a code the list does not have. */
  readonly description: string | undefined;
  /** The code's category; `'other'` for a code the list does not have. */
  readonly category: PortalErrorCategory;
  /** Whether trying again later may succeed: true exactly when the category is `'retryable'`. */
  readonly retryable: boolean;
}

// A program that looks codes up has the list loaded already: a PortalError it makes by hand carries its description too.
usePortalDescriptions(PORTAL_ERROR_CODES);

const CODE_FORMS = /^(?:PORTAL_ERROR_)?(\d+)$/;

/** The code as a safe non-negative integer, or `undefined` when `value` is not a portal code. */
function codeOf(value: unknown): number | undefined {
  const match = typeof value === 'string' ? CODE_FORMS.exec(value.trim()) : null;
  const number = typeof value === 'number' ? value : match ? Number(match[1]) : Number.NaN;
  return Number.isSafeInteger(number) && number >= 0 ? number : undefined;
}

/**
 * Looks a portal error code up in the NIC e-way bill portal's published list (and the codes NIC published since, such
 * as 4042).
 * An unknown code is not an error: its description is `undefined` and its category `'other'`.
 *
 * @param code The portal's code as a number (`238`), a string (`'238'`), or the service's `error_code`
 *   (`'PORTAL_ERROR_238'`); a number must be a safe non-negative integer.
 * @throws {TypeError} when `code` is none of these forms (for example `1.5`, `-5`, `Infinity`, `NaN` or a BigInt);
 *   any non-negative integer is accepted, and one not in the list is unknown.
 * @example
 * describePortalError('PORTAL_ERROR_604');
 * // { code: 604, description: 'E-way bill(s) are already generated for the same document number, …',
 * //   category: 'state', retryable: false }
 */
export function describePortalError(code: number | string): PortalErrorDescription {
  const number = codeOf(code);
  if (number === undefined) {
    throw new TypeError(
      "describePortalError expects a portal code such as 238, '238' or 'PORTAL_ERROR_238' " +
        `(a safe non-negative integer); got ${describeValue(code)}`,
    );
  }
  const entry = Object.hasOwn(PORTAL_ERROR_CODES, number) ? PORTAL_ERROR_CODES[number] : undefined;
  const category = entry?.category ?? 'other';
  return { code: number, description: entry?.description, category, retryable: category === 'retryable' };
}
