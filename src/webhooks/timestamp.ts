import { validationIssue } from '../errors/validation-error.js';
import { IST_OFFSET_MINUTES } from '../internal/ist.js';
import { WebhookPayloadError } from './errors.js';

/**
 * The time zone a webhook timestamp is read in: `'IST'` (India Standard Time, UTC+05:30, no daylight saving;
 * `'Asia/Kolkata'` is the same), `'UTC'`, or a fixed offset such as `'+05:30'` or `'-04:00'`.
 */
export type WebhookTimeZone = 'IST' | 'Asia/Kolkata' | 'UTC' | `${'+' | '-'}${number}:${number}`;

/** Options of {@link parseWebhookTimestamp}. */
export interface ParseWebhookTimestampOptions {
  /**
   * The zone the service wrote the timestamp in. The spec does not say; the service is Indian and its other dates
   * are Indian dates, so IST is assumed. Pass `'UTC'` if your deliveries show otherwise.
   * @default 'IST'
   */
  timeZone?: WebhookTimeZone | undefined;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;
const OFFSET = /^([+-])(\d{2}):(\d{2})$/;

function offsetMinutes(timeZone: string): number {
  if (timeZone === 'IST' || timeZone === 'Asia/Kolkata') return IST_OFFSET_MINUTES;
  if (timeZone === 'UTC') return 0;
  const match = OFFSET.exec(timeZone);
  const hours = Number(match?.[2]);
  const minutes = Number(match?.[3]);
  if (!match || hours > 14 || minutes > 59) {
    throw new TypeError(`timeZone must be 'IST', 'Asia/Kolkata', 'UTC' or an offset like '+05:30'; got '${timeZone}'.`);
  }
  return (match[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/**
 * Reads an event's `timestamp` (`YYYY-MM-DD HH:MM:SS.ffffff`, spec, Events) as a `Date`.
 * The spec gives no time zone; IST (UTC+05:30) is assumed unless `timeZone` says otherwise.
 * A `Date` holds milliseconds, so the last three digits of the microseconds are dropped; keep the string
 * when you need them. The fraction may have 1 to 6 digits or be absent.
 *
 * @param timestamp - The `data.timestamp` of an event.
 * @returns The instant, as a `Date`.
 * @throws {WebhookPayloadError} When the text does not have the spec's shape or is not a real date and time.
 * @throws {TypeError} When `timeZone` is not one of the accepted forms.
 * @example
 * parseWebhookTimestamp('2026-11-21 10:30:00.123456').toISOString() // '2026-11-21T05:00:00.123Z'
 * parseWebhookTimestamp('2026-11-21 10:30:00.123456', { timeZone: 'UTC' }).toISOString() // '2026-11-21T10:30:00.123Z'
 */
export function parseWebhookTimestamp(timestamp: string, options: ParseWebhookTimestampOptions = {}): Date {
  const offset = offsetMinutes(options.timeZone ?? 'IST');
  const utc = specTimestampUtc(timestamp);
  if (utc === undefined) {
    const shown = typeof timestamp === 'string' ? `'${timestamp.slice(0, 40)}'` : typeof timestamp;
    throw new WebhookPayloadError([
      validationIssue(['timestamp'], `Expected a real date and time written YYYY-MM-DD HH:MM:SS.ffffff; got ${shown}`),
    ]);
  }
  return new Date(utc - offset * 60_000);
}

/**
 * The spec's timestamp (`YYYY-MM-DD HH:MM:SS.ffffff`) read as if it were UTC, in milliseconds; `undefined` when the
 * text does not have that shape or is not a real date and time. An event is `known` only when this reads its
 * timestamp, so `parseWebhookTimestamp` never throws on a known event's `data.timestamp`.
 */
export function specTimestampUtc(timestamp: unknown): number | undefined {
  const match = typeof timestamp === 'string' ? TIMESTAMP.exec(timestamp) : null;
  const [year, month, day, hour, minute, second] = match ? match.slice(1, 7).map(Number) : [];
  const millis = Number((match?.[7] ?? '').padEnd(3, '0').slice(0, 3));
  const utc = Date.UTC(year ?? 0, (month ?? 1) - 1, day, hour, minute, second, millis);
  const check = new Date(utc);
  // Date.UTC rolls 2026-02-30 over to March; reading the fields back catches impossible dates and times.
  const real =
    match !== null &&
    check.getUTCFullYear() === year &&
    check.getUTCMonth() + 1 === month &&
    check.getUTCDate() === day &&
    check.getUTCHours() === hour &&
    check.getUTCMinutes() === minute &&
    check.getUTCSeconds() === second;
  return real ? utc : undefined;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number written by the ASCII digits of `text` from `from` to `to`, or -1 when one is not a digit. */
function digitsAt(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * Whether `value` is the spec's `YYYY-MM-DD HH:MM:SS.ffffff` of a real date and time: exactly when
 * {@link specTimestampUtc} gives a time, without allocating (it runs on every webhook event).
 */
export function isSpecTimestamp(value: string): boolean {
  const length = value.length;
  if (length !== 19 && (length < 21 || length > 26)) return false;
  if (
    value.charCodeAt(4) !== 45 || // -
    value.charCodeAt(7) !== 45 ||
    value.charCodeAt(10) !== 32 || // space
    value.charCodeAt(13) !== 58 || // :
    value.charCodeAt(16) !== 58 ||
    (length > 19 && (value.charCodeAt(19) !== 46 || digitsAt(value, 20, length) < 0)) // .ffffff
  ) {
    return false;
  }
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 7);
  const day = digitsAt(value, 8, 10);
  const hour = digitsAt(value, 11, 13);
  const minute = digitsAt(value, 14, 16);
  const second = digitsAt(value, 17, 19);
  // Date.UTC reads the years 0 to 99 as 1900 to 1999, so specTimestampUtc refuses them; so does this.
  if (year < 100 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59) {
    return false;
  }
  if (second < 0 || second > 59) return false;
  const leap = month === 2 && ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0);
  return day <= (DAYS_IN_MONTH[month - 1] as number) + (leap ? 1 : 0);
}
