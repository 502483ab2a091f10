import { IST_OFFSET_MS } from '../internal/ist.js';
import type { DocumentEventData, InventoryEventData } from '../webhooks/index.js';

/** A `document` event as the service sends it on the wire (spec, Events). */
export interface DocumentEventPayload {
  event_id: string;
  event_type: 'document';
  data: DocumentEventData;
}

/** An `inventory` event as the service sends it on the wire (spec, Events). */
export interface InventoryEventPayload {
  event_id: string;
  event_type: 'inventory';
  data: InventoryEventData;
}

/** Overrides of an event fixture: the envelope's `event_id`, and any `data` fields. */
export interface EventOverrides<Data> {
  event_id?: string | undefined;
  data?: Partial<Data> | undefined;
}

/**
 * A timestamp in the spec's event shape `YYYY-MM-DD HH:MM:SS.ffffff`, in India Standard Time (UTC+05:30),
 * the zone the SDK's `parseWebhookTimestamp` assumes.
 * @default date: now
 * @example formatEventTimestamp(new Date('2026-11-21T05:00:00.123Z')) // '2026-11-21 10:30:00.123000'
 */
export function formatEventTimestamp(date: Date = new Date()): string {
  const ist = new Date(date.getTime() + IST_OFFSET_MS).toISOString(); // 2026-11-21T10:30:00.123Z
  return `${ist.slice(0, 10)} ${ist.slice(11, 23)}000`;
}

/**
 * A `document` event as the service would send it, with a fresh UUID `event_id` and the current time.
 * Override any field: `buildDocumentEvent({ data: { hash_id: 'inv_1' } })`.
 * @example
 * const event = buildDocumentEvent({ data: { document_type: 'invoice', message: 'Document created' } });
 */
export function buildDocumentEvent(overrides: EventOverrides<DocumentEventData> = {}): DocumentEventPayload {
  return {
    event_id: overrides.event_id ?? crypto.randomUUID(),
    event_type: 'document',
    data: {
      document_type: 'invoice',
      serial_number: 'INV-0001',
      hash_id: `doc_${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`,
      message: 'Document created',
      timestamp: formatEventTimestamp(),
      ...overrides.data,
    },
  };
}

/**
 * An `inventory` event as the service would send it, with a fresh UUID `event_id` and the current time.
 * @example
 * const event = buildInventoryEvent({ data: { qty: 5, movement: 'out', partner_product_id: -1 } });
 */
export function buildInventoryEvent(overrides: EventOverrides<InventoryEventData> = {}): InventoryEventPayload {
  return {
    event_id: overrides.event_id ?? crypto.randomUUID(),
    event_type: 'inventory',
    data: {
      service_product_id: 1001,
      partner_product_id: 'SKU-1001',
      product_name: 'Steel bolts M8',
      qty: 10,
      movement: 'in',
      timestamp: formatEventTimestamp(),
      ...overrides.data,
    },
  };
}
