import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookEvent, WebhookHandlerOptions } from '../../src/webhooks/index.js';
import { INVENTORY_EVENT, SECRET, signed } from './fixtures.js';
import { handlerStarters } from './servers.js';

// An inventory event as the real service's public documentation shows it: the product-id field carries the maker's
// name, where the spec neutralised it to service_product_id (spec, introduction). `acme` stands in for the maker.
const DOCUMENTED_INVENTORY_EVENT = {
  event_id: '7f3e1c2a-9b8d-4e6f-a1b2-c3d4e5f60718',
  event_type: 'inventory',
  data: {
    acme_product_id: 98765,
    partner_product_id: 'SKU-STEEL-12',
    product_name: 'Steel rod 12 mm',
    qty: 40,
    movement: 'in',
    timestamp: '2026-11-21 11:02:44.514210',
  },
} as const;

// A spec-shaped event with fields the service added later, in data and in the envelope.
const EXTENDED_INVENTORY_EVENT = {
  ...INVENTORY_EVENT,
  event_id: 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d',
  attempt: 2,
  data: { ...INVENTORY_EVENT.data, warehouse_id: 'WH-3', batch: { code: 'B-7', expiry: '2027-03-01' } },
} as const;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const handlers = handlerStarters(closers);

async function deliver(url: string, payload: unknown) {
  const { body, signature } = signed(payload);
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature': signature },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe.each(handlers)('payload drift through %s', (_, start) => {
  function collect(overrides: Partial<WebhookHandlerOptions> = {}) {
    const events: WebhookEvent[] = [];
    const errors: unknown[] = [];
    const warnings: { message: string; details: unknown }[] = [];
    const options: WebhookHandlerOptions = {
      secret: SECRET,
      logger: { warn: (message: string, details?: unknown) => warnings.push({ message, details }) },
      onEvent: (event) => {
        events.push(event);
      },
      onError: (error) => {
        errors.push(error);
      },
      ...overrides,
    };
    return { events, errors, warnings, options };
  }

  it('answers 200 to an inventory event shaped like the public docs and delivers it unrecognised with its issues', async () => {
    const { events, errors, warnings, options } = collect();
    const url = await start(options);
    expect(await deliver(url, DOCUMENTED_INVENTORY_EVENT)).toEqual({ status: 200, body: { ok: true } });
    expect(errors).toEqual([]);
    // Never silent (issue 17.8): reported once, with the type as received and the issues.
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(
      /webhook event .* of type 'inventory' does not match the spec.*data\.service_product_id: is missing/,
    );
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toMatchObject({
      known: false,
      event_id: DOCUMENTED_INVENTORY_EVENT.event_id,
      event_type: 'unknown',
      received_event_type: 'inventory',
      data: DOCUMENTED_INVENTORY_EVENT.data,
    });
    expect(event?.known === false && event.issues).toEqual([
      { path: ['data', 'service_product_id'], field: 'data.service_product_id', message: 'is missing' },
    ]);
  });

  it('answers 200 to a spec-shaped event with extra fields and keeps every one of them', async () => {
    const { events, options } = collect();
    const url = await start(options);
    expect((await deliver(url, EXTENDED_INVENTORY_EVENT)).status).toBe(200);
    expect(events).toEqual([{ known: true, ...EXTENDED_INVENTORY_EVENT }]);
  });

  it('with strictPayload, answers 400 to the docs-shaped event and never calls onEvent', async () => {
    const { events, errors, options } = collect({ strictPayload: true });
    const url = await start(options);
    const answer = await deliver(url, DOCUMENTED_INVENTORY_EVENT);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ ok: false, error: 'WEBHOOK_PAYLOAD_INVALID' });
    expect(String(answer.body.message)).toContain('data.service_product_id');
    expect(events).toEqual([]);
    expect(errors).toHaveLength(1);
    // Extra fields alone are never a reason to refuse.
    expect((await deliver(url, EXTENDED_INVENTORY_EVENT)).status).toBe(200);
  });

  it('still answers 400 to a signed body without an event id, and to one that is not JSON', async () => {
    const { events, options } = collect();
    const url = await start(options);
    expect((await deliver(url, { event_type: 'inventory', data: INVENTORY_EVENT.data })).status).toBe(400);
    expect((await deliver(url, '{"event_id": "x", ')).status).toBe(400);
    expect(events).toEqual([]);
  });
});
