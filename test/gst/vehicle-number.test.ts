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
    ['DL1C1234', 'a one-digit district'],
    ['MH12AB12345', 'a five-digit number'],
    ['M12AB1234', 'a one-letter state'],
    ['MH12ABCD1234', 'four series letters'],
    ['TM123', 'a temporary number under 7 characters'],
    ['1234', 'digits only'],
    ['', 'nothing'],
  ])('rejects %s (%s)', (value) => {
    expect(isValidVehicleNumber(value)).toBe(false);
  });

  it('forgives spaces, hyphens and lower case, which normalizeVehicleNumber removes', () => {
    expect(normalizeVehicleNumber(' mh-12 ab.1234 ')).toBe('MH12AB1234');
    expect(isValidVehicleNumber('mh 12 ab 1234')).toBe(true);
  });
});
