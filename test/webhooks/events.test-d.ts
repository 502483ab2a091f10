import { describe, expectTypeOf, it } from 'vitest';
import type {
  DOCUMENT_EVENT_FIELDS,
  FieldKind,
  FieldType,
  INVENTORY_EVENT_FIELDS,
} from '../../src/webhooks/event-fields.js';
import type {
  DocumentEvent,
  DocumentEventData,
  InventoryEvent,
  InventoryEventData,
  UnknownEvent,
  ValidationIssue,
  WebhookEvent,
  WebhookPayloadError,
} from '../../src/webhooks/index.js';
import { verifyWebhook } from '../../src/webhooks/index.js';

declare const event: WebhookEvent;

describe('WebhookEvent types', () => {
  it('verifyWebhook resolves to a WebhookEvent', () => {
    expectTypeOf(verifyWebhook).returns.resolves.toEqualTypeOf<WebhookEvent>();
  });

  it('narrows to the unknown event on known === false', () => {
    if (!event.known) {
      expectTypeOf(event).toEqualTypeOf<UnknownEvent>();
      expectTypeOf(event.data).toBeUnknown();
    }
  });

  it('narrows data on event_type once known is checked', () => {
    if (event.known && event.event_type === 'document') {
      expectTypeOf(event).toEqualTypeOf<DocumentEvent>();
      expectTypeOf(event.data).toEqualTypeOf<DocumentEventData>();
    }
    if (event.known && event.event_type === 'inventory') {
      expectTypeOf(event).toEqualTypeOf<InventoryEvent>();
      expectTypeOf(event.data.partner_product_id).toEqualTypeOf<number | string>();
      expectTypeOf(event.data.movement).toEqualTypeOf<'in' | 'out'>();
    }
  });

  it('narrows data on event_type alone, without checking known', () => {
    if (event.event_type === 'document') {
      expectTypeOf(event).toEqualTypeOf<DocumentEvent>();
      expectTypeOf(event.data.hash_id).toBeString();
    }
    switch (event.event_type) {
      case 'inventory':
        expectTypeOf(event).toEqualTypeOf<InventoryEvent>();
        expectTypeOf(event.data.movement).toEqualTypeOf<'in' | 'out'>();
        break;
      case 'unknown':
        expectTypeOf(event).toEqualTypeOf<UnknownEvent>();
        expectTypeOf(event.received_event_type).toBeString();
        break;
    }
  });

  it('narrows to the unknown event on event_type === unknown and keeps its received type a string', () => {
    if (event.event_type !== 'document' && event.event_type !== 'inventory') {
      expectTypeOf(event).toEqualTypeOf<UnknownEvent>();
      expectTypeOf(event.known).toEqualTypeOf<false>();
      expectTypeOf(event.data).toBeUnknown();
    }
  });

  it('refuses to compare event_type with an event type name the SDK does not know', () => {
    // @ts-expect-error a new type's name is in received_event_type; event_type is 'unknown' for it
    void (event.event_type === 'payment');
  });

  it('keeps timestamps as strings', () => {
    expectTypeOf<DocumentEventData['timestamp']>().toBeString();
    expectTypeOf<InventoryEventData['timestamp']>().toBeString();
  });

  it('does not let data be read as document data before narrowing', () => {
    // @ts-expect-error data may be an unknown event's data until `known` is checked
    void event.data.hash_id;
  });

  it('refuses a parsed object as the body at compile time', () => {
    // @ts-expect-error a parsed object is not a raw body
    void verifyWebhook({ event_id: 'x' }, 'sig', 'secret');
  });
});

describe('the field tables and the event data interfaces', () => {
  type FromTable<T extends Record<string, FieldKind>> = { readonly [K in keyof T]: FieldType<T[K]> };

  it('describe the same fields with the same types', () => {
    expectTypeOf<FromTable<typeof DOCUMENT_EVENT_FIELDS>>().toEqualTypeOf<DocumentEventData>();
    expectTypeOf<FromTable<typeof INVENTORY_EVENT_FIELDS>>().toEqualTypeOf<InventoryEventData>();
  });

  it('give unrecognised events their issues', () => {
    expectTypeOf<UnknownEvent['issues']>().toEqualTypeOf<readonly ValidationIssue[]>();
  });
});

describe('WebhookPayloadError', () => {
  it('says the event id as received, when the body had one', () => {
    expectTypeOf<WebhookPayloadError['receivedEventId']>().toEqualTypeOf<string | undefined>();
  });
});
