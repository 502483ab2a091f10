import { describe, expect, it } from 'vitest';
import { verifyWebhook, type WebhookEvent, WebhookPayloadError } from '../../src/webhooks/index.js';
import { parseWebhookEvent } from '../../src/webhooks/parse-event.js';
import { DOCUMENT_EVENT, INVENTORY_EVENT, SECRET, signed } from './fixtures.js';

function payloadError(body: string | Uint8Array, strictPayload = false): WebhookPayloadError {
  try {
    parseWebhookEvent(body, { strictPayload });
  } catch (error) {
    if (error instanceof WebhookPayloadError) return error;
    throw error;
  }
  throw new Error('expected a WebhookPayloadError');
}

const fields = (error: WebhookPayloadError) => error.issues.map((issue) => issue.field);

describe('webhook event parsing', () => {
  it('reads an inventory event with an unmapped product (-1) and a fractional quantity', () => {
    const event = parseWebhookEvent(JSON.stringify(INVENTORY_EVENT));
    expect(event).toEqual({ known: true, ...INVENTORY_EVENT });
  });

  it('keeps a string partner_product_id as a string', () => {
    const data = { ...INVENTORY_EVENT.data, partner_product_id: 'SKU-77' };
    const event = parseWebhookEvent(JSON.stringify({ ...INVENTORY_EVENT, data }));
    expect(event.known && event.event_type === 'inventory' && event.data.partner_product_id).toBe('SKU-77');
  });

  it('returns an event of an unknown type as an unknown event with its data untouched', () => {
    const future = { event_id: 'a1', event_type: 'payment', data: { amount: 10, nested: [1, { x: null }] } };
    const event = parseWebhookEvent(JSON.stringify(future));
    expect(event).toEqual({
      known: false,
      event_id: 'a1',
      event_type: 'unknown',
      received_event_type: 'payment',
      data: future.data,
      issues: [],
    });
  });

  it('accepts an event_id that is not shaped like a UUID', () => {
    const event = parseWebhookEvent(JSON.stringify({ ...DOCUMENT_EVENT, event_id: 'evt_42' }));
    expect(event.event_id).toBe('evt_42');
  });

  it('keeps data and envelope fields the spec does not define on known events', () => {
    const data = { ...DOCUMENT_EVENT.data, added_later: true, nested: { a: [1] } };
    const event = parseWebhookEvent(JSON.stringify({ ...DOCUMENT_EVENT, data, delivered_at: '2026-11-21' }));
    expect(event).toEqual({ known: true, ...DOCUMENT_EVENT, data, delivered_at: '2026-11-21' });
  });

  it('delivers a known type whose data drifted from the spec as unrecognised, with the issues and data as received', () => {
    const data = { ...INVENTORY_EVENT.data, service_product_id: 1.5, movement: 'sideways', qty: '3' };
    const event = parseWebhookEvent(JSON.stringify({ ...INVENTORY_EVENT, data }));
    expect(event).toMatchObject({ known: false, event_type: 'unknown', received_event_type: 'inventory', data });
    expect(!event.known && event.issues.map((issue) => issue.field).sort()).toEqual([
      'data.movement',
      'data.qty',
      'data.service_product_id',
    ]);
  });

  it('delivers a known type without data as unrecognised, naming data', () => {
    const event = parseWebhookEvent(JSON.stringify({ event_id: 'd', event_type: 'document' }));
    expect(event).toMatchObject({ known: false, received_event_type: 'document', data: undefined });
    expect(!event.known && event.issues.map((issue) => issue.field)).toEqual(['data']);
  });

  it('accepts a UTF-8 byte order mark before the JSON', () => {
    const bytes = new TextEncoder().encode(`\uFEFF${JSON.stringify(DOCUMENT_EVENT)}`);
    expect(parseWebhookEvent(bytes).event_id).toBe(DOCUMENT_EVENT.event_id);
  });

  it.each([
    ['an empty body', '', 'The body is empty'],
    ['text that is not JSON', 'event=1', 'not valid JSON'],
    ['a JSON array', '[1,2]', 'Expected a JSON object'],
    ['a JSON string', '"hello"', 'Expected a JSON object'],
  ])('refuses %s with a message saying so', (_, body, message) => {
    expect(payloadError(body).message).toContain(message);
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(payloadError(Uint8Array.of(0x7b, 0xff, 0xfe, 0x7d)).message).toContain('not valid UTF-8');
  });

  it('refuses an envelope without event_id and event_type, naming both', () => {
    expect(fields(payloadError('{"data":{}}')).sort()).toEqual(['event_id', 'event_type']);
  });

  it('refuses an event_id that is not a string or longer than 256 characters', () => {
    expect(fields(payloadError(JSON.stringify({ ...DOCUMENT_EVENT, event_id: 42 })))).toEqual(['event_id']);
    expect(fields(payloadError(JSON.stringify({ ...DOCUMENT_EVENT, event_id: 'e'.repeat(257) })))).toEqual([
      'event_id',
    ]);
  });

  it('refuses an empty event_id', () => {
    expect(fields(payloadError(JSON.stringify({ ...DOCUMENT_EVENT, event_id: '' })))).toEqual(['event_id']);
  });

  it('with strictPayload, refuses a drifted inventory event, naming each bad field under data', () => {
    const data = { ...INVENTORY_EVENT.data, service_product_id: 1.5, movement: 'sideways', qty: '3' };
    const error = payloadError(JSON.stringify({ ...INVENTORY_EVENT, data }), true);
    expect(fields(error).sort()).toEqual(['data.movement', 'data.qty', 'data.service_product_id']);
  });

  it('with strictPayload, refuses a document event whose data is not an object', () => {
    expect(fields(payloadError(JSON.stringify({ ...DOCUMENT_EVENT, data: 'x' }), true))).toEqual(['data']);
  });

  it('does not repeat field values in the message or the issues', () => {
    const data = { ...DOCUMENT_EVENT.data, hash_id: 12345678901 };
    const body = JSON.stringify({ ...DOCUMENT_EVENT, data });
    expect(payloadError(body, true).message).not.toContain('12345678901');
    expect(JSON.stringify(parseWebhookEvent(body))).toContain('12345678901'); // the data, as received
    const event = parseWebhookEvent(body);
    expect(JSON.stringify(!event.known && event.issues)).not.toContain('12345678901');
  });
});

describe('narrowing a verified event', () => {
  const payloads = [DOCUMENT_EVENT, INVENTORY_EVENT, { event_id: 'z', event_type: 'new', data: null }];

  it('lets a receiver switch on event_type alone, unknown types included', async () => {
    const seen: string[] = [];
    for (const payload of payloads) {
      const { body, signature } = signed(payload);
      const event: WebhookEvent = await verifyWebhook(body, signature, SECRET);
      switch (event.event_type) {
        case 'document':
          seen.push(`document:${event.data.hash_id}`);
          break;
        case 'inventory':
          seen.push(`inventory:${event.data.movement}:${event.data.qty}`);
          break;
        case 'unknown':
          seen.push(`unknown:${event.received_event_type}`);
          break;
      }
    }
    expect(seen).toEqual(['document:doc_7Hk2Lm9Q', 'inventory:out:12.5', 'unknown:new']);
  });

  it('still lets a receiver check known first, as in 0.1.0', async () => {
    const seen: string[] = [];
    for (const payload of payloads) {
      const { body, signature } = signed(payload);
      const event: WebhookEvent = await verifyWebhook(body, signature, SECRET);
      if (!event.known) {
        seen.push(`unknown:${event.received_event_type}`);
        continue;
      }
      seen.push(event.event_type === 'document' ? `document:${event.data.hash_id}` : `inventory:${event.data.qty}`);
    }
    expect(seen).toEqual(['document:doc_7Hk2Lm9Q', 'inventory:12.5', 'unknown:new']);
  });

  it("gives an envelope whose event_type is literally 'unknown' the same unknown shape", () => {
    const event = parseWebhookEvent(JSON.stringify({ event_id: 'u', event_type: 'unknown', data: { a: 1 } }));
    expect(event).toMatchObject({ known: false, event_type: 'unknown', received_event_type: 'unknown' });
  });
});
