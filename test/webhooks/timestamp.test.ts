import { describe, expect, it } from 'vitest';
import { parseWebhookTimestamp, WebhookPayloadError } from '../../src/webhooks/index.js';

describe('parseWebhookTimestamp', () => {
  it('reads the spec format as India Standard Time (UTC+05:30) by default', () => {
    expect(parseWebhookTimestamp('2026-11-21 10:30:00.123456').toISOString()).toBe('2026-11-21T05:00:00.123Z');
  });

  it('reads the same text as UTC when told to', () => {
    const date = parseWebhookTimestamp('2026-11-21 10:30:00.123456', { timeZone: 'UTC' });
    expect(date.toISOString()).toBe('2026-11-21T10:30:00.123Z');
  });

  it('treats Asia/Kolkata as IST and accepts fixed offsets', () => {
    const text = '2026-01-01 00:15:00.000000';
    expect(parseWebhookTimestamp(text, { timeZone: 'Asia/Kolkata' }).toISOString()).toBe('2025-12-31T18:45:00.000Z');
    expect(parseWebhookTimestamp(text, { timeZone: '-04:00' }).toISOString()).toBe('2026-01-01T04:15:00.000Z');
  });

  it('crosses the date line back into the previous UTC day', () => {
    expect(parseWebhookTimestamp('2026-03-01 02:00:00.000000').toISOString()).toBe('2026-02-28T20:30:00.000Z');
  });

  it('accepts a fraction of fewer digits, or none', () => {
    expect(parseWebhookTimestamp('2026-11-21 10:30:00.5', { timeZone: 'UTC' }).getUTCMilliseconds()).toBe(500);
    expect(parseWebhookTimestamp('2026-11-21 10:30:00', { timeZone: 'UTC' }).getUTCMilliseconds()).toBe(0);
  });

  it.each([
    '2026-11-21T10:30:00.123456',
    '2026-02-30 10:00:00.000000',
    '2026-11-21 24:00:00.000000',
    '2026-11-21 10:60:00.000000',
    '2026-11-21 10:30:00.1234567',
    '21-11-2026 10:30:00.000000',
    '',
  ])('refuses %j with a WebhookPayloadError naming the expected shape', (text) => {
    expect(() => parseWebhookTimestamp(text)).toThrow(WebhookPayloadError);
    expect(() => parseWebhookTimestamp(text)).toThrow(/YYYY-MM-DD HH:MM:SS\.ffffff/);
  });

  it.each(['PST', '+5:30', '+15:00', 'Europe/Paris'])('refuses the time zone %j with a TypeError', (timeZone) => {
    expect(() => parseWebhookTimestamp('2026-11-21 10:30:00.000000', { timeZone: timeZone as never })).toThrow(
      TypeError,
    );
  });
});
