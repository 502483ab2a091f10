import * as z from 'zod';

/**
 * The event types the spec defines (spec, Events). Any other `event_type` arrives as an {@link UnknownEvent}, whose
 * `event_type` is {@link UNKNOWN_EVENT_TYPE} and whose `received_event_type` holds the name that came.
 */
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

/** A `document` event: `event.event_type === 'document'` narrows a {@link WebhookEvent} to it. */
export interface DocumentEvent {
  readonly known: true;
  readonly event_id: string;
  readonly event_type: 'document';
  readonly data: DocumentEventData;
}

/** An `inventory` event: `event.event_type === 'inventory'` narrows a {@link WebhookEvent} to it. */
export interface InventoryEvent {
  readonly known: true;
  readonly event_id: string;
  readonly event_type: 'inventory';
  readonly data: InventoryEventData;
}

/**
 * The `event_type` of every {@link UnknownEvent}. The envelope's own name goes to `received_event_type`, because a
 * member typed `event_type: string` would stop `event_type === 'document'` from narrowing the union.
 */
export const UNKNOWN_EVENT_TYPE = 'unknown';

/**
 * An event whose `event_type` this SDK version does not know. It still passed the signature check
 * and has an `event_id`; `data` is the JSON value as received. A new event type never breaks a receiver.
 *
 * @example
 * // The service sent {"event_id":"e-9","event_type":"payment","data":{...}}:
 * event.event_type;          // 'unknown'
 * event.received_event_type; // 'payment'
 */
export interface UnknownEvent {
  readonly known: false;
  readonly event_id: string;
  /** Always {@link UNKNOWN_EVENT_TYPE}, so that checking `event_type` narrows a {@link WebhookEvent}. */
  readonly event_type: typeof UNKNOWN_EVENT_TYPE;
  /** The `event_type` exactly as the envelope gave it, for example `'payment'`. */
  readonly received_event_type: string;
  readonly data: unknown;
}

/** An event of a type the spec defines. */
export type KnownWebhookEvent = DocumentEvent | InventoryEvent;

/**
 * A verified webhook event. `event_type` narrows it, and so `data`: `'document'`, `'inventory'`, or `'unknown'` for
 * an {@link UnknownEvent}. `known` is `false` exactly for the unknown ones and narrows the same way.
 *
 * @example
 * switch (event.event_type) {
 *   case 'document': return saveDocument(event.data.hash_id);
 *   case 'inventory': return moveStock(event.data.service_product_id, event.data.qty, event.data.movement);
 *   case 'unknown': return console.info('skipping event type', event.received_event_type);
 * }
 */
export type WebhookEvent = KnownWebhookEvent | UnknownEvent;
