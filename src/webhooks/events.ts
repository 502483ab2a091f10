import type { ValidationIssue } from '../errors/validation-error.js';
import type { INVENTORY_MOVEMENTS } from './event-fields.js';

/**
 * The event types the spec defines (spec, Events). Any other `event_type` arrives as an {@link UnknownEvent}, whose
 * `event_type` is {@link UNKNOWN_EVENT_TYPE} and whose `received_event_type` holds the name that came.
 */
export const WEBHOOK_EVENT_TYPES = ['document', 'inventory'] as const;

/** A known event type. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** `partner_product_id` of a product that is not mapped to the partner's system. */
export const UNMAPPED_PARTNER_PRODUCT_ID = -1;

/**
 * The `data` of a `document` event: a document was created, updated or modified (spec, Event type `document`).
 * Fields the service adds later are kept on the object as received (read them as `event.data['new_field']`).
 */
export interface DocumentEventData {
  /** The kind of document, for example `'invoice'`. */
  readonly document_type: string;
  /** The document's serial number, for example `'INV-2026-0042'`. */
  readonly serial_number: string;
  /** The document's id in the service (its hash id). */
  readonly hash_id: string;
  /** What happened, in words, for example `'Document created'`. */
  readonly message: string;
  /** When, as the spec's text `YYYY-MM-DD HH:MM:SS.ffffff` (IST); see `parseWebhookTimestamp`. */
  readonly timestamp: string;
}

/**
 * The `data` of an `inventory` event: stock went in or out (spec, Event type `inventory`).
 * Fields the service adds later are kept on the object as received.
 */
export interface InventoryEventData {
  /** The product's id in the service. */
  readonly service_product_id: number;
  /** The product's id in the partner's system, or {@link UNMAPPED_PARTNER_PRODUCT_ID} (-1) when not mapped. */
  readonly partner_product_id: number | string;
  /** The product's name. */
  readonly product_name: string;
  /** How much moved (may be fractional). */
  readonly qty: number;
  /** `'in'` or `'out'`. */
  readonly movement: (typeof INVENTORY_MOVEMENTS)[number];
  /** When, as the spec's text `YYYY-MM-DD HH:MM:SS.ffffff` (IST); see `parseWebhookTimestamp`. */
  readonly timestamp: string;
}

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
 * An event this SDK version cannot type: its `event_type` is new, or it is a known type whose `data` does not match
 * the spec's shape (payload drift; `issues` says what did not match). It still passed the signature check and has an
 * `event_id`; `data` is the JSON value as received. Neither a new event type nor a changed payload breaks a receiver
 * or loses an event.
 *
 * @example
 * // The service sent {"event_id":"e-9","event_type":"payment","data":{...}}:
 * event.event_type;          // 'unknown'
 * event.received_event_type; // 'payment'
 * event.issues;              // [] (a type this SDK does not know)
 * // An inventory event whose data lacks service_product_id:
 * event.received_event_type; // 'inventory'
 * event.issues;              // [{ field: 'data.service_product_id', message: 'is missing', ... }]
 */
export interface UnknownEvent {
  readonly known: false;
  readonly event_id: string;
  /** Always {@link UNKNOWN_EVENT_TYPE}, so that checking `event_type` narrows a {@link WebhookEvent}. */
  readonly event_type: typeof UNKNOWN_EVENT_TYPE;
  /** The `event_type` exactly as the envelope gave it, for example `'payment'`. */
  readonly received_event_type: string;
  /** The JSON value of the envelope's `data`, exactly as received. */
  readonly data: unknown;
  /**
   * What in `data` did not match the spec's shape, for a known `received_event_type`; empty for a type this SDK
   * does not know.
   */
  readonly issues: readonly ValidationIssue[];
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
