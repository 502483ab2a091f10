import { describe, expect, it } from 'vitest';
import { checkTransporterId, gstinCheckCharacter, isValidTransporterId } from '../../src/gst/index.js';

describe('transporter id check', () => {
  it('accepts a GSTIN', () => {
    expect(checkTransporterId('29AAGCB7383J1Z4')).toEqual({ valid: true, kind: 'gstin' });
  });

  it("refuses a value with a GSTIN's full layout but a wrong check character, as a likely typo (portal 222)", () => {
    // 29AAGCB7383J1Z4 is a valid GSTIN; one character changed keeps its layout and breaks its check character.
    for (const typo of ['29AAGCB7383J1Z5', '27AAGCB7383J1Z4', '29AAGCB7388J1Z4']) {
      const check = checkTransporterId(typo);
      expect(check.valid, typo).toBe(false);
      if (!check.valid) expect(check.message, typo).toMatch(/likely a GSTIN with a typo: The check character/);
    }
    // The trade-off: resilient-tech/india-compliance issue #2072 reports 29AAFCA7488L1Z0 as a TRANSIN the portal
    // issued with such a check character. It is now a finding (a warning by default), which says so.
    expect(gstinCheckCharacter('29AAFCA7488L1Z')).not.toBe('0');
    const issued = checkTransporterId('29AAFCA7488L1Z0');
    expect(issued.valid).toBe(false);
    if (!issued.valid) expect(issued.message).toContain('A few TRANSINs were issued with such a check character');
  });

  it('accepts a TRANSIN without a GSTIN layout (position 14 other than Z), whose check character is not checked', () => {
    expect(checkTransporterId('29AAFCA7488L1A0')).toEqual({ valid: true, kind: 'transin' });
  });

  it('no longer lets single-character typos of valid GSTINs pass as TRANSINs in large share', () => {
    const valid = ['29AAGCB7383J1Z4', '27AAPFU0939F1ZV', '24AANFA2641L1ZF', '05AAACG2115R1ZN', '19AAPFU0939F1ZS'];
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    let typos = 0;
    let passed = 0;
    for (const gstin of valid) {
      for (let index = 0; index < 15; index++) {
        for (const char of alphabet) {
          if (char === gstin[index]) continue;
          typos += 1;
          const typo = `${gstin.slice(0, index)}${char}${gstin.slice(index + 1)}`;
          if (checkTransporterId(typo).valid) passed += 1;
        }
      }
    }
    expect(typos).toBe(5 * 15 * 35);
    // Before issue 12: 57% passed (as TRANSINs or common enrolment numbers). Now only the typos that leave the GSTIN
    // layout (a changed 13th or 14th character, or 88 in front) still pass.
    const share = passed / typos;
    console.log(
      `single-character typos of valid GSTINs accepted as transporter ids: ${(share * 100).toFixed(1)}% (${passed}/${typos})`,
    );
    expect(share).toBeLessThan(0.1);
  });

  it('accepts common enrolment numbers, which start with 88', () => {
    // Cited in frappe/erpnext pull request #22057 and resilient-tech/india-compliance issue #1044.
    expect(checkTransporterId('88AABFG1694H1ZP')).toEqual({ valid: true, kind: 'common-enrolment' });
    expect(isValidTransporterId('88AAACD8017H1ZX')).toBe(true);
  });

  it('rejects ids of the wrong length, in lower case, or with a broken structure, saying why', () => {
    const cases: [string, RegExp][] = [
      ['29AAFCA7488L1Z', /15 characters/],
      ['29aafca7488l1z0', /upper case/],
      ['29AAFC17488L1Z0', /Character 7 should be a letter/],
      ['99AAFCA7488L1Z0', /not a GST state code/],
      ['AAAAFCA7488L1Z0', /Character 1 should be a digit/],
    ];
    for (const [value, reason] of cases) {
      const check = checkTransporterId(value);
      expect(check.valid, value).toBe(false);
      if (!check.valid) expect(check.message, value).toMatch(reason);
    }
    expect(isValidTransporterId(undefined)).toBe(false);
  });
});
