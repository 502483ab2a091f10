// Issue 17, finding 8: a drifted event is never silent. On real loopback servers, both handlers: every field the SDK
// types must parse (the timestamp included) for an event to be `known`; each drifted event is reported once per event
// id through the logger; prototype keys never reach a partner's copy of the data.
import { afterEach, describe, expect, it } from 'vitest';
import { parseWebhookTimestamp, type WebhookEvent, type WebhookHandlerOptions } from '../../src/webhooks/index.js';
import { DOCUMENT_EVENT, deliverSigned, INVENTORY_EVENT } from './fixtures.js';
import { handlerStarters } from './servers.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});
const handlers = handlerStarters(closers);

const RECEIVER_SECRET = 'whsec_drift_word_compass';

/** POSTs `body` (an event, or its exact text) signed with `secret`; resolves with the status. */
const deliver = async (url: string, body: unknown, secret = RECEIVER_SECRET) =>
  (await deliverSigned(url, body, secret)).status;

let counter = 0;
const id = () => `drift-${process.pid}-${++counter}`;
const document = (data: Record<string, unknown>) => ({
  event_id: id(),
  event_type: 'document',
  data: { ...DOCUMENT_EVENT.data, ...data },
});
const inventory = (data: Record<string, unknown>) => ({
  event_id: id(),
  event_type: 'inventory',
  data: { ...INVENTORY_EVENT.data, ...data },
});

const DRIFTED: readonly [string, () => unknown, string][] = [
  ['an ISO timestamp', () => document({ timestamp: '2026-11-21T10:30:00Z' }), 'data.timestamp'],
  ['a free-text timestamp', () => document({ timestamp: 'yesterday' }), 'data.timestamp'],
  ['an impossible date', () => document({ timestamp: '2026-02-30 10:30:00.000000' }), 'data.timestamp'],
  ['an empty hash_id', () => document({ hash_id: '' }), 'data.hash_id'],
  ['a negative qty', () => inventory({ qty: -5 }), 'data.qty'],
  ['qty 1e308', () => inventory({ qty: 1e308 }), 'data.qty'],
];

describe.each(handlers)('drifted events through %s', (_, start) => {
  function setup(extra: Partial<WebhookHandlerOptions> = {}) {
    const events: WebhookEvent[] = [];
    const warnings: { message: string; details: { eventId?: string; issues?: { field: string }[] } }[] = [];
    const options: WebhookHandlerOptions = {
      secret: RECEIVER_SECRET,
      // The README's advice: a known event's timestamp is read; onEvent must never throw on it.
      onEvent: (event) => {
        if (event.known) parseWebhookTimestamp(event.data.timestamp);
        events.push(event);
      },
      logger: { warn: (message, details) => warnings.push({ message, details: details as never }) },
      ...extra,
    };
    return { events, warnings, options };
  }

  it.each(DRIFTED)('%s arrives known: false, answered 200, reported once per event id', async (_what, make, field) => {
    const { events, warnings, options } = setup();
    const url = await start(options);
    const event = make() as { event_id: string };
    const post = () => deliver(url, event);
    expect(await post()).toBe(200);
    expect(await post()).toBe(200); // a redelivery: "duplicate", not reported again
    expect(events).toHaveLength(1);
    expect(events[0]?.known).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.details.eventId).toBe(event.event_id);
    expect(warnings[0]?.details.issues?.map((i) => i.field)).toContain(field);
    expect(warnings[0]?.message).not.toContain(RECEIVER_SECRET);
  });

  it('an event id, type and field names holding newlines and terminal escapes stay on one warn line', async () => {
    // Review of issue 28, finding 10: the signed sender's `event_id` was written raw into the line (log injection).
    const { warnings, options } = setup();
    const url = await start(options);
    const evilId = `${id()}\ninvoicing-service-sdk: forged line \u001b[31mred\u001b[0m\r\u2028`;
    const event = {
      event_id: evilId,
      event_type: 'document\nforged type',
      data: { ...DOCUMENT_EVENT.data, 'odd\nkey': 1, timestamp: 'yesterday' },
    };
    expect(await deliver(url, event)).toBe(200);
    expect(warnings).toHaveLength(1);
    const line = warnings[0]?.message ?? '';
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(line).toContain('\\u000a'); // the newline, escaped where it was
    expect(line).toContain('\\u001b[31m');
    // The details keep the id as received: a structured logger escapes it itself.
    expect(warnings[0]?.details.eventId).toBe(evilId);
  });

  it('a spec-shaped event stays known and is not reported', async () => {
    const { events, warnings, options } = setup();
    const url = await start(options);
    expect(await deliver(url, { ...DOCUMENT_EVENT, event_id: id() }, 'whsec_another_secret')).toBe(401);
    const status = await deliver(url, { ...DOCUMENT_EVENT, event_id: id() });
    expect(status).toBe(200);
    expect(events.map((e) => e.known)).toEqual([true]);
    expect(warnings).toEqual([]);
  });

  it('an own __proto__, constructor or prototype key never reaches a copy of the data', async () => {
    const { events, options } = setup();
    const url = await start(options);
    const body = `{"event_id":"${id()}","event_type":"document","data":{"document_type":"invoice","serial_number":"INV-1","hash_id":"h1","message":"m","timestamp":"2026-11-21 10:30:00.123456","__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}}`;
    const status = await deliver(url, body);
    expect(status).toBe(200);
    const [event] = events;
    expect(event?.known).toBe(false);
    const copy = Object.assign({}, event?.data) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.hasOwn(event?.data as object, '__proto__')).toBe(false);
    expect(Object.hasOwn(event?.data as object, 'constructor')).toBe(false);
  });

  // JSON escapes spell the same keys: the guard must see the parsed key, not the raw text.
  it.each([
    ['\\u005f_proto__', '__proto__'],
    ['\\u005F\\u005Fproto\\u005f\\u005f', '__proto__'],
    ['__pr\\u006fto__', '__proto__'],
    ['constr\\u0075ctor', 'constructor'],
    ['\\u0070rototype', 'prototype'],
  ])('an escaped prototype key ("%s") is dropped too, and the event is not known', async (escaped, key) => {
    const { events, options } = setup();
    const url = await start(options);
    const body = `{"event_id":"${id()}","event_type":"document","data":{"document_type":"invoice","serial_number":"INV-1","hash_id":"h1","message":"m","timestamp":"2026-11-21 10:30:00.123456","${escaped}":{"polluted":true}}}`;
    expect(body).not.toContain(key);
    expect(await deliver(url, body)).toBe(200);
    const [event] = events;
    expect(event?.known).toBe(false);
    expect(Object.hasOwn(event?.data as object, key)).toBe(false);
    const copy = Object.assign({}, event?.data) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
  });
});

describe("the README's handler (examples/webhooks/next-route.ts)", () => {
  it('keeps a drifted event for review instead of dropping it', async () => {
    // The example builds its handler at import, from WEBHOOK_SECRET.
    process.env.WEBHOOK_SECRET ??= 'whsec_example_word';
    const { onEvent: exampleOnEvent, received: exampleReceived } = await import(
      '../../examples/webhooks/next-route.js'
    );
    const drifted = { ...document({ timestamp: 'yesterday' }), known: false as const };
    await exampleOnEvent({
      ...drifted,
      event_type: 'unknown',
      received_event_type: 'document',
      issues: [],
    } as unknown as WebhookEvent);
    expect(exampleReceived.review).toHaveLength(1);
    await exampleOnEvent({ known: true, ...DOCUMENT_EVENT } as unknown as WebhookEvent);
    expect(exampleReceived.documents).toHaveLength(1);
  });
});
