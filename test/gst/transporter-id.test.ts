import { describe, expect, it } from 'vitest';
import { checkTransporterId, gstinCheckCharacter, isValidTransporterId } from '../../src/gst/index.js';

describe('transporter id check', () => {
  it('accepts a GSTIN', () => {
    expect(checkTransporterId('29AAGCB7383J1Z4')).toEqual({ valid: true, kind: 'gstin' });
  });

  it('accepts a TRANSIN whose check character the GSTIN algorithm rejects, as the portal issues them', () => {
    // Reported as a valid transporter id in resilient-tech/india-compliance issue #2072.
    expect(gstinCheckCharacter('29AAFCA7488L1Z')).not.toBe('0');
    expect(checkTransporterId('29AAFCA7488L1Z0')).toEqual({ valid: true, kind: 'transin' });
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
