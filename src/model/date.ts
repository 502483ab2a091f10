import { IST_OFFSET_MS } from '../internal/ist.js';

const DATE_PATTERN = /^(\d{2})-(\d{2})-(\d{4})$/;

/**
 * Whether `value` is a real calendar date written `DD-MM-YYYY`, the spec's only date format.
 * `31-02-2026` and `2026-02-01` are not.
 */
export function isServiceDate(value: string): boolean {
  const match = DATE_PATTERN.exec(value);
  if (!match) return false;
  const day = Number(match[1]);
  const month = Number(match[2]);
  const year = Number(match[3]);
  if (month < 1 || month > 12 || day < 1 || year < 1) return false;
  // The Gregorian calendar's month lengths, counted without a Date: this runs for every date of every call.
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const daysInMonth =
    month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return day <= daysInMonth;
}

/**
 * Formats a `Date` as `DD-MM-YYYY`, the spec's date format, using the calendar day in India
 * (IST, UTC+05:30, which has no daylight saving), because e-way bill dates are Indian dates.
 * @example formatServiceDate(new Date('2026-11-21T20:00:00Z')) // '22-11-2026' (01:30 IST)
 */
export function formatServiceDate(date: Date): string {
  const ist = new Date(date.getTime() + IST_OFFSET_MS);
  const dd = String(ist.getUTCDate()).padStart(2, '0');
  const mm = String(ist.getUTCMonth() + 1).padStart(2, '0');
  return `${dd}-${mm}-${ist.getUTCFullYear()}`;
}
