import { ValidationError, validationIssue } from '../errors/validation-error.js';
import type { State } from '../model/states.js';
import { checkCharacterOf } from './check-character.js';
import { type GstStateCode, stateOfGstinCode } from './state-codes.js';

/** A valid GSTIN taken apart. */
export interface ParsedGstin {
  /** The whole GSTIN, 15 characters. */
  readonly gstin: string;
  /** Characters 1–2: the GST state code of the registration, for example `'27'`. */
  readonly stateCode: GstStateCode;
  /** The state of {@link ParsedGstin.stateCode}, spelled as the spec spells it (see `stateFromCode`). */
  readonly state: State;
  /** Characters 3–12: the holder's PAN. */
  readonly pan: string;
  /** Character 13: the number of the registration among the PAN's registrations in the state (1–9, then A–Z). */
  readonly entityNumber: string;
  /** Character 15: the mod-36 check character. */
  readonly checkChar: string;
}

/** What is wrong with a value that is not a valid GSTIN. */
export interface GstinProblem {
  /** Which check failed, in the order they are made. */
  readonly kind: 'type' | 'length' | 'case' | 'structure' | 'state-code' | 'check-character';
  /** What is wrong, in words, with the fix when there is one. */
  readonly message: string;
  /** The 1-based position of the wrong character, for `structure`, `state-code` and `check-character`. */
  readonly position?: number;
  /** For `check-character`: the check character the first 14 characters call for. */
  readonly expected?: string;
}

/** The answer of {@link checkGstin}. */
export type GstinCheck =
  | { readonly valid: true; readonly gstin: ParsedGstin }
  | { readonly valid: false; readonly problem: GstinProblem };

const PAN = 'characters 3–12 are the PAN: 5 letters, 4 digits, 1 letter';
const SLOTS: readonly (readonly [RegExp, string])[] = [
  [/\d/, 'a digit (characters 1–2 are the state code)'],
  [/\d/, 'a digit (characters 1–2 are the state code)'],
  ...Array.from({ length: 5 }, () => [/[A-Z]/, `a letter (${PAN})`] as const),
  ...Array.from({ length: 4 }, () => [/\d/, `a digit (${PAN})`] as const),
  [/[A-Z]/, `a letter (${PAN})`],
  [/[1-9A-Z]/, 'the entity number: 1–9 or A–Z, not 0'],
  [/Z/, "'Z'"],
  [/[0-9A-Z]/, 'the check character: a digit or a letter'],
];

function problemOf(value: unknown): GstinProblem | undefined {
  if (typeof value !== 'string') return { kind: 'type', message: `A GSTIN is a string; got ${typeof value}` };
  if (value.length !== 15) {
    const hint = value.trim().length === 15 ? ' (remove the spaces around it)' : '';
    return { kind: 'length', message: `A GSTIN has 15 characters; this one has ${value.length}${hint}` };
  }
  if (/[a-z]/.test(value)) {
    return { kind: 'case', message: `A GSTIN is written in upper case: '${value.toUpperCase()}'` };
  }
  for (const [index, [pattern, expected]] of SLOTS.entries()) {
    const char = value.charAt(index);
    if (!pattern.test(char)) {
      return {
        kind: 'structure',
        position: index + 1,
        message: `Character ${index + 1} should be ${expected}; got '${char}'`,
      };
    }
  }
  const code = value.slice(0, 2);
  if (stateOfGstinCode(code) === undefined) {
    return { kind: 'state-code', position: 1, message: `'${code}' is not a GST state code (01–38 except 25, or 97)` };
  }
  const expected = checkCharacterOf(value.slice(0, 14));
  if (value.charAt(14) !== expected) {
    return {
      kind: 'check-character',
      position: 15,
      expected,
      message: `The check character (15th) should be '${expected}', not '${value.charAt(14)}', so at least one character is wrong`,
    };
  }
  return undefined;
}

/**
 * Checks a GSTIN without throwing: 15 characters, upper case, the structure (2-digit state code, PAN, entity number,
 * 'Z', check character), a known state code, and the mod-36 check character.
 * Only the layout of regular registrations (PAN-based) is accepted.
 * @returns `{ valid: true, gstin }` with its parts, or `{ valid: false, problem }` saying what is wrong.
 * @example
 * const check = checkGstin('27AAPFU0939F1ZX');
 * if (!check.valid) console.log(check.problem.message); // The check character (15th) should be 'V', not 'X': …
 */
export function checkGstin(value: unknown): GstinCheck {
  const problem = problemOf(value);
  if (problem) return { valid: false, problem };
  const gstin = value as string;
  return {
    valid: true,
    gstin: {
      gstin,
      stateCode: gstin.slice(0, 2) as GstStateCode,
      state: stateOfGstinCode(gstin.slice(0, 2)) as State,
      pan: gstin.slice(2, 12),
      entityNumber: gstin.charAt(12),
      checkChar: gstin.charAt(14),
    },
  };
}

/**
 * Whether `value` is a valid GSTIN (see {@link checkGstin}). Lower-case input is not valid: the portal expects
 * upper case, so this says no rather than hide a value the portal would refuse.
 * @example isValidGstin('27AAPFU0939F1ZV'); // true
 */
export function isValidGstin(value: unknown): boolean {
  return problemOf(value) === undefined;
}

/**
 * Takes a GSTIN apart, after checking it like {@link checkGstin}.
 * @throws {ValidationError} when `value` is not a valid GSTIN; its single issue says what is wrong.
 * @example parseGstin('29AAGCB7383J1Z4').state; // 'KARNATAKA'
 */
export function parseGstin(value: unknown): ParsedGstin {
  const check = checkGstin(value);
  if (!check.valid) throw new ValidationError('GSTIN', [validationIssue([], check.problem.message)]);
  return check.gstin;
}

/**
 * The state of a GSTIN's registration (from its first two characters), spelled as the spec spells it.
 * @returns The state, or `undefined` when `gstin` is not a valid GSTIN.
 * @example stateFromGstin('27AAPFU0939F1ZV'); // 'MAHARASHTRA'
 */
export function stateFromGstin(gstin: string): State | undefined {
  const check = checkGstin(gstin);
  return check.valid ? check.gstin.state : undefined;
}
