import * as z from 'zod/mini';
import { SDK_MESSAGES } from '../internal/issue-message.js';
import { DOCUMENT_EVENT_FIELDS, type FieldKind, INVENTORY_EVENT_FIELDS, kindProblem } from './event-fields.js';
import type { DocumentEventData, InventoryEventData } from './events.js';

// zod schemas of the event shapes, for receivers that validate events themselves. The handlers and verifyWebhook do
// not use them (they check with the tables of event-fields.ts), so each is built in a pure call: a bundle that does
// not use a schema drops it, and zod with it.

function fieldSchema(kind: FieldKind): z.ZodMiniType {
  if (kind === 'string') return z.string(SDK_MESSAGES);
  if (kind === 'int') return z.int(SDK_MESSAGES);
  if (kind === 'number') return z.number(SDK_MESSAGES);
  // The kinds with a rule beyond the type: the same check as the handlers', as a refinement.
  if (kind === 'id' || kind === 'timestamp' || kind === 'quantity') {
    const base = kind === 'quantity' ? z.number(SDK_MESSAGES) : z.string(SDK_MESSAGES);
    return base.check(
      z.refine((value: unknown) => kindProblem(kind, value) === undefined, {
        error: (issue) => kindProblem(kind, issue.input) ?? 'invalid',
      }),
    );
  }
  if (kind === 'int_or_string') return z.union([z.int(SDK_MESSAGES), z.string(SDK_MESSAGES)], SDK_MESSAGES);
  return z.enum(kind as readonly [string, ...string[]], SDK_MESSAGES);
}

/** A loose object schema for a field table: extra fields are kept, as the handlers keep them. */
function tableSchema<T>(fields: Readonly<Record<string, FieldKind>>): z.ZodMiniType<T & Record<string, unknown>> {
  const shape = Object.fromEntries(Object.entries(fields).map(([name, kind]) => [name, fieldSchema(kind)]));
  return z.looseObject(shape, SDK_MESSAGES) as unknown as z.ZodMiniType<T & Record<string, unknown>>;
}

/**
 * The `data` of a `document` event (spec, Event type `document`); fields the service adds later are kept.
 * `timestamp` keeps the spec's text form `YYYY-MM-DD HH:MM:SS.ffffff`; see `parseWebhookTimestamp`.
 */
export const DocumentEventDataSchema = /* @__PURE__ */ (() => tableSchema<DocumentEventData>(DOCUMENT_EVENT_FIELDS))();

/**
 * The `data` of an `inventory` event (spec, Event type `inventory`); fields the service adds later are kept.
 * `partner_product_id` is `UNMAPPED_PARTNER_PRODUCT_ID` (-1) when the product is not mapped.
 */
export const InventoryEventDataSchema = /* @__PURE__ */ (() =>
  tableSchema<InventoryEventData>(INVENTORY_EVENT_FIELDS))();

/**
 * The envelope of every event. `event_id` has a UUID shape in the spec, but any non-empty id of at most
 * 256 characters is accepted, so a change of id format never makes a receiver refuse events.
 */
export const WebhookEnvelopeSchema = /* @__PURE__ */ (() =>
  z.looseObject(
    {
      event_id: z.string(SDK_MESSAGES).check(z.minLength(1), z.maxLength(256)),
      event_type: z.string(SDK_MESSAGES).check(z.minLength(1)),
      // Any value, but present: z.unknown() would let zod report a missing `data` with no message of the SDK's.
      data: z.custom<unknown>((value) => value !== undefined, { error: 'Required (any value)' }),
    },
    SDK_MESSAGES,
  ))();
