// The allocation-free check of the spec's timestamp that every webhook event runs (isSpecTimestamp) agrees with the
// parser partners call (specTimestampUtc, behind parseWebhookTimestamp) on every string: property-tested with
// fast-check over strings shaped like the spec's and over arbitrary text, plus the calendar's edges.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSpecTimestamp, specTimestampUtc } from '../../src/webhooks/timestamp.js';

const agrees = (value: string) => isSpecTimestamp(value) === (specTimestampUtc(value) !== undefined);

const pad = (n: number, width: number) => String(n).padStart(width, '0');
/** Strings in the spec's shape with numbers from slightly out of range, and fractions of 0 to 7 digits. */
const shaped = fc
  .record({
    year: fc.integer({ min: 0, max: 9999 }),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
    hour: fc.integer({ min: 0, max: 25 }),
    minute: fc.integer({ min: 0, max: 61 }),
    second: fc.integer({ min: 0, max: 61 }),
    fraction: fc.option(fc.stringMatching(/^\d{0,7}$/), { nil: undefined }),
  })
  .map(
    ({ year, month, day, hour, minute, second, fraction }) =>
      `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)} ${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}` +
      (fraction === undefined ? '' : `.${fraction}`),
  );

describe('isSpecTimestamp', () => {
  it('agrees with specTimestampUtc on 20,000 strings in the spec shape', () => {
    fc.assert(fc.property(shaped, agrees), { numRuns: 20_000, seed: 2611 });
  });

  it('agrees on 5,000 mutated and arbitrary strings', () => {
    const mutated = fc
      .tuple(shaped, fc.nat(26), fc.string({ minLength: 1, maxLength: 1 }))
      .map(([text, at, char]) => text.slice(0, at) + char + text.slice(at + 1));
    fc.assert(fc.property(fc.oneof(mutated, fc.string({ maxLength: 30 })), agrees), { numRuns: 5_000, seed: 2612 });
  });

  it.each([
    ['2024-02-29 00:00:00', true],
    ['2026-02-29 10:30:00.123456', false],
    ['2000-02-29 23:59:59', true],
    ['1900-02-29 12:00:00', false],
    ['2026-04-31 12:00:00', false],
    ['2026-12-31 23:59:59.9', true],
    ['2026-11-21 24:00:00', false],
    ['2026-11-21 10:30:60', false],
    ['0099-01-01 00:00:00', false],
    ['0100-01-01 00:00:00', true],
    ['2026-11-21 10:30:00.', false],
    ['2026-11-21 10:30:00.1234567', false],
    ['2026-11-21T10:30:00', false],
    ['２０２６-11-21 10:30:00', false],
  ])('%s → %s, as specTimestampUtc says', (value, expected) => {
    expect(isSpecTimestamp(value)).toBe(expected);
    expect(agrees(value)).toBe(true);
  });
});
