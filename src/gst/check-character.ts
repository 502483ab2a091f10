import { describeValue } from '../internal/describe.js';

/** The 36 characters of a GSTIN, in the order that gives each its value (0–35) in the check-character sum. */
export const GSTIN_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

const BASE = GSTIN_ALPHABET.length;
const FOURTEEN_CHARACTERS = /^[0-9A-Z]{14}$/;

/**
 * The mod-36 check character for the first 14 characters of a GSTIN, by the GSTN algorithm: each character's value
 * is multiplied by a factor that alternates 1, 2, 1, … from the left; the quotient and remainder of each product by 36
 * are added up; the check character is the one whose value is `(36 - sum % 36) % 36`.
 *
 * Use it to make valid GSTINs for tests, or to tell which check character a GSTIN should have.
 *
 * @param first14 The first 14 characters: digits and upper-case letters only.
 * @returns The 15th character that makes the GSTIN's check character valid.
 * @throws {TypeError} when `first14` is not 14 characters from 0–9 and A–Z.
 * @example
 * gstinCheckCharacter('27AAPFU0939F1Z'); // 'V', so 27AAPFU0939F1ZV is valid
 */
export function gstinCheckCharacter(first14: string): string {
  if (typeof first14 !== 'string' || !FOURTEEN_CHARACTERS.test(first14)) {
    throw new TypeError(
      `gstinCheckCharacter expects the first 14 characters of a GSTIN (digits and upper-case letters); got ${describeValue(first14)}`,
    );
  }
  return checkCharacterOf(first14);
}

/** The check character of 14 characters already known to be from {@link GSTIN_ALPHABET}. */
export function checkCharacterOf(first14: string): string {
  let sum = 0;
  for (let index = 0; index < 14; index++) {
    const product = GSTIN_ALPHABET.indexOf(first14.charAt(index)) * (index % 2 === 0 ? 1 : 2);
    sum += Math.floor(product / BASE) + (product % BASE);
  }
  return GSTIN_ALPHABET.charAt((BASE - (sum % BASE)) % BASE);
}
