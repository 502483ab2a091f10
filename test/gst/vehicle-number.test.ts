import { describe, expect, it } from 'vitest';
import { isValidVehicleNumber, normalizeVehicleNumber } from '../../src/gst/index.js';

describe('vehicle number formats', () => {
  it.each([
    'AB121234',
    'KA01A1234',
    'MH12AB1234',
    'DL01CAB1234',
    'AB123A1234',
    'ABC1234',
    'DF123456',
    'TM1234567',
    'TR12345AB',
    'BP12345',
    'NP1234567890123',
    '22BH1234AB',
  ])('accepts %s', (value) => {
    expect(isValidVehicleNumber(value)).toBe(true);
  });

  it.each([
    ['DL1234', 'a district without series letters or number'],
    ['DL1CABCD1234', 'four series letters after a one-digit district'],
    ['MH12AB12345', 'a five-digit number'],
    ['M12AB1234', 'a one-letter state'],
    ['MH12ABCD1234', 'four series letters'],
    ['TM123', 'a temporary number under 7 characters'],
    ['1234', 'digits only'],
    ['', 'nothing'],
  ])('rejects %s (%s)', (value) => {
    expect(isValidVehicleNumber(value)).toBe(false);
  });

  it("accepts Delhi's one-digit-district registration marks, as the plates carry them (issue 20 item 5)", () => {
    // DL1CAB1234 is the example: Delhi's registration marks write the district without a leading 0
    // (DL1C…, DL3C…, DL12C…), and NIC's list of formats (AB12AB1234) holds only the two-digit form.
    for (const value of ['DL1CAB1234', 'DL1C1234', 'DL3CBJ1234', 'DL12CAB1234', 'dl 1c ab 1234']) {
      expect(isValidVehicleNumber(value), value).toBe(true);
    }
  });

  it('forgives spaces, hyphens and lower case, which normalizeVehicleNumber removes', () => {
    expect(normalizeVehicleNumber(' mh-12 ab.1234 ')).toBe('MH12AB1234');
    expect(isValidVehicleNumber('mh 12 ab 1234')).toBe(true);
  });
});
