import fc from 'fast-check';
import { ValidationError } from 'invoicing-service-sdk';
import { describe, expect, it } from 'vitest';
import { GSTIN_ALPHABET } from '../../src/gst/check-character.js';
import {
  checkGstin,
  gstinCheckCharacter,
  isValidGstin,
  parseGstin,
  STATE_CODES,
  stateFromGstin,
} from '../../src/gst/index.js';

// GSTINs published in public sources; each check character was verified with the GSTN algorithm before use here.
const PUBLISHED = [
  '27AAPFU0939F1ZV', // a widely used documentation example
  '29AAGCB7383J1Z4', // a widely used documentation example
  '32AADCK5978M1Z0', // reported valid in tk120404/gst issue #3
  '21AABFG1694H1ZP', // a transporter's GSTIN, cited in frappe/erpnext pull request #22057
  '27AAACR5055K1Z7',
];

const chars = (set: string, length: number) =>
  fc.array(fc.constantFrom(...set), { minLength: length, maxLength: length }).map((list) => list.join(''));
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';

/** Any valid GSTIN: a known state code, a PAN-shaped middle, an entity number, 'Z' and its check character. */
const validGstin = fc
  .tuple(
    fc.constantFrom(...new Set(Object.values(STATE_CODES))),
    chars(LETTERS, 5),
    chars(DIGITS, 4),
    chars(LETTERS, 1),
    chars(`123456789${LETTERS}`, 1),
  )
  .map((parts) => {
    const first14 = `${parts.join('')}Z`;
    return first14 + gstinCheckCharacter(first14);
  });

describe('GSTIN check', () => {
  it.each(PUBLISHED)('accepts the published GSTIN %s', (gstin) => {
    expect(isValidGstin(gstin)).toBe(true);
    expect(gstinCheckCharacter(gstin.slice(0, 14))).toBe(gstin.charAt(14));
  });

  it('takes a GSTIN apart into state code, state, PAN, entity number and check character', () => {
    expect(parseGstin('27AAPFU0939F1ZV')).toEqual({
      gstin: '27AAPFU0939F1ZV',
      stateCode: '27',
      state: 'MAHARASHTRA',
      pan: 'AAPFU0939F',
      entityNumber: '1',
      checkChar: 'V',
    });
    expect(stateFromGstin('29AAGCB7383J1Z4')).toBe('KARNATAKA');
    expect(stateFromGstin('29AAGCB7383J1Z5')).toBeUndefined();
  });

  it('accepts every generated GSTIN', () => {
    fc.assert(
      fc.property(validGstin, (gstin) => isValidGstin(gstin)),
      { numRuns: 300 },
    );
  });

  it('rejects any generated GSTIN with one character replaced by another', () => {
    const changed = fc
      .tuple(validGstin, fc.nat({ max: 14 }), fc.constantFrom(...GSTIN_ALPHABET))
      .filter(([gstin, index, char]) => gstin.charAt(index) !== char)
      .map(([gstin, index, char]) => gstin.slice(0, index) + char + gstin.slice(index + 1));
    fc.assert(
      fc.property(changed, (gstin) => !isValidGstin(gstin)),
      { numRuns: 1000 },
    );
  });

  it('rejects all 525 single-character substitutions of a published GSTIN', () => {
    const gstin = '27AAPFU0939F1ZV';
    let tried = 0;
    for (let index = 0; index < 15; index++) {
      for (const char of GSTIN_ALPHABET) {
        if (char === gstin.charAt(index)) continue;
        tried++;
        expect(isValidGstin(gstin.slice(0, index) + char + gstin.slice(index + 1)), `${index}:${char}`).toBe(false);
      }
    }
    expect(tried).toBe(15 * 35);
  });
});

describe('what checkGstin says is wrong', () => {
  const problem = (value: unknown) => {
    const check = checkGstin(value);
    if (check.valid) throw new Error(`expected ${String(value)} to be invalid`);
    return check.problem;
  };

  it('names the check character the GSTIN should have', () => {
    expect(problem('27AAPFU0939F1ZX')).toMatchObject({ kind: 'check-character', position: 15, expected: 'V' });
    expect(problem('27AAPFU0939F1ZX').message).toContain("should be 'V', not 'X'");
  });

  it('names the position whose character breaks the structure', () => {
    expect(problem('27AAPFU0O39F1ZV')).toMatchObject({ kind: 'structure', position: 9 });
    expect(problem('27AAPFU0O39F1ZV').message).toMatch(/Character 9 should be a digit.*PAN.*got 'O'/);
    expect(problem('27AAPFU0939F0ZV')).toMatchObject({ kind: 'structure', position: 13 });
    expect(problem('27AAPFU0939F1YV')).toMatchObject({ kind: 'structure', position: 14 });
    expect(problem('2XAAPFU0939F1ZV')).toMatchObject({ kind: 'structure', position: 2 });
  });

  it('rejects a state code no state has, such as 25 (Daman and Diu before the merger) or 99', () => {
    for (const code of ['25', '99', '00', '39']) {
      const first14 = `${code}AAPFU0939F1Z`;
      expect(problem(first14 + gstinCheckCharacter(first14))).toMatchObject({ kind: 'state-code', position: 1 });
    }
  });

  it('says a GSTIN has 15 characters, and suggests removing spaces when that is the fix', () => {
    expect(problem('27AAPFU0939F1Z')).toMatchObject({ kind: 'length' });
    expect(problem(' 27AAPFU0939F1ZV ').message).toContain('remove the spaces');
    expect(problem(27)).toMatchObject({ kind: 'type' });
  });

  it('does not accept lower case, and gives the upper-case spelling', () => {
    expect(isValidGstin('27aapfu0939f1zv')).toBe(false);
    expect(problem('27aapfu0939f1zv')).toMatchObject({ kind: 'case' });
    expect(problem('27aapfu0939f1zv').message).toContain("'27AAPFU0939F1ZV'");
  });
});

describe('parseGstin and gstinCheckCharacter on bad input', () => {
  it('throws a ValidationError whose issue says what is wrong', () => {
    const error = (() => {
      try {
        parseGstin('27AAPFU0939F1ZX');
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).code).toBe('VALIDATION_ERROR');
    expect((error as ValidationError).issues).toHaveLength(1);
    expect((error as ValidationError).message).toContain("should be 'V'");
  });

  it('refuses to compute a check character for anything but 14 digits and upper-case letters', () => {
    expect(() => gstinCheckCharacter('27AAPFU0939F1')).toThrow(TypeError);
    expect(() => gstinCheckCharacter('27aapfu0939f1z')).toThrow(TypeError);
    expect(gstinCheckCharacter('00000000000000')).toBe('0');
  });

  it.each([
    [14n, '14n'],
    [Number.NaN, 'NaN'],
    ['X'.repeat(1_000_000), `'${'X'.repeat(59)}…`],
    [
      (() => {
        const cycle: Record<string, unknown> = {};
        cycle.self = cycle;
        return cycle;
      })(),
      'an object',
    ],
  ])('says what it got, briefly and without failing on it: %#', (bad, shown) => {
    const call = () => gstinCheckCharacter(bad as unknown as string);
    expect(call).toThrow(TypeError);
    expect(call).toThrow(/^gstinCheckCharacter expects the first 14 characters of a GSTIN/);
    expect(call).toThrow(new RegExp(`; got ${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  });
});
