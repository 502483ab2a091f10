import * as z from 'zod';

/** The event types the spec defines (spec, Events). Any other `event_type` arrives as an {@link UnknownEvent}. */
export const WEBHOOK_EVENT_TYPES = ['document', 'inventory'] as const;

/** A known event type. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The directions of an inventory change. */
export const INVENTORY_MOVEMENTS = ['in', 'out'] as const;

/** `partner_product_id` of a product that is not mapped to the partner's system. */
export const UNMAPPED_PARTNER_PRODUCT_ID = -1;

/**
 * The `data` of a `document` event (spec, Event type `document`). Fields the service adds later are dropped.
 * `timestamp` keeps the spec's text form `YYYY-MM-DD HH:MM:SS.ffffff`; see `parseWebhookTimestamp`.
 */
export const DocumentEventDataSchema = z.object({
  document_type: z.string(),
  serial_number: z.string(),
  hash_id: z.string(),
  message: z.string(),
  timestamp: z.string(),
});

/** The `data` of a `document` event: a document was created, updated or modified. */
export type DocumentEventData = z.output<typeof DocumentEventDataSchema>;

/**
 * The `data` of an `inventory` event (spec, Event type `inventory`). Fields the service adds later are dropped.
 * `partner_product_id` is {@link UNMAPPED_PARTNER_PRODUCT_ID} (-1) when the product is not mapped.
 */
export const InventoryEventDataSchema = z.object({
  service_product_id: z.int(),
  partner_product_id: z.union([z.int(), z.string()]),
  product_name: z.string(),
  qty: z.number(),
  movement: z.enum(INVENTORY_MOVEMENTS),
  timestamp: z.string(),
});

/** The `data` of an `inventory` event: stock went in or out. */
export type InventoryEventData = z.output<typeof InventoryEventDataSchema>;

/**
 * The envelope of every event. `event_id` has a UUID shape in the spec, but any non-empty id of at most
 * 256 characters is accepted, so a change of id format never makes a receiver refuse events.
 */
export const WebhookEnvelopeSchema = z.object({
  event_id: z.string().min(1).max(256),
  event_type: z.string().min(1),
  data: z.unknown(),
});

/** A `document` event. Narrow with `event.known` first, then on `event.event_type`. */
export interface DocumentEvent {
  readonly known: true;
  readonly event_id: string;
  readonly event_type: 'document';
  readonly data: DocumentEventData;
}

/** An `inventory` event. Narrow with `event.known` first, then on `event.event_type`. */
export interface InventoryEvent {
  readonly known: true;
  readonly event_id: string;
  readonly event_type: 'inventory';
  readonly data: InventoryEventData;
}

/**
 * An event whose `event_type` this SDK version does not know. It still passed the signature check
 * and has an `event_id`; `data` is the JSON value as received. A new event type never breaks a receiver.
 */
export interface UnknownEvent {
  readonly known: false;
  readonly event_id: string;
  readonly event_type: string;
  readonly data: unknown;
}

/** An event of a type the spec defines. */
export type KnownWebhookEvent = DocumentEvent | InventoryEvent;

/**
 * A verified webhook event. `known` tells an {@link UnknownEvent} apart; after that check, `event_type`
 * narrows `data`.
 *
 * @example
 * if (!event.known) return console.info('skipping event type', event.event_type);
 * switch (event.event_type) {
 *   case 'document': return saveDocument(event.data.hash_id);
 *   case 'inventory': return moveStock(event.data.service_product_id, event.data.qty, event.data.movement);
 * }
 */
export type WebhookEvent = KnownWebhookEvent | UnknownEvent;
