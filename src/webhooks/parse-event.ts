import type * as z from 'zod';
import { type ValidationIssue, validationIssue } from '../errors/validation-error.js';
import { WebhookPayloadError } from './errors.js';
import {
  DocumentEventDataSchema,
  InventoryEventDataSchema,
  UNKNOWN_EVENT_TYPE,
  WebhookEnvelopeSchema,
  type WebhookEvent,
} from './events.js';

function issuesOf(error: z.ZodError, prefix: readonly string[] = []): ValidationIssue[] {
  return error.issues.map((issue) =>
    validationIssue(
      [...prefix, ...issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment))],
      issue.message,
    ),
  );
}

function fail(message: string, cause?: unknown): never {
  throw new WebhookPayloadError([validationIssue([], message)], { cause });
}

// Stateless in fatal mode, so one decoder serves every call.
const decoder = new TextDecoder('utf-8', { fatal: true });

function parseJson(body: string | Uint8Array): unknown {
  let text: string;
  if (typeof body === 'string') {
    text = body;
  } else {
    try {
      text = decoder.decode(body);
    } catch (error) {
      fail('The body is not valid UTF-8', error);
    }
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    fail(text.trim() === '' ? 'The body is empty' : 'The body is not valid JSON', error);
  }
}

/**
 * Parses and validates a webhook body whose signature was already checked.
 * @throws {WebhookPayloadError} When the body is not JSON, not an envelope, or a known event breaks the spec.
 */
export function parseWebhookEvent(body: string | Uint8Array): WebhookEvent {
  const json = parseJson(body);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    fail('Expected a JSON object (the event envelope with event_id, event_type and data)');
  }
  const envelope = WebhookEnvelopeSchema.safeParse(json);
  if (!envelope.success) throw new WebhookPayloadError(issuesOf(envelope.error));
  const { event_id, event_type, data } = envelope.data;
  if (event_type === 'document') {
    const parsed = DocumentEventDataSchema.safeParse(data);
    if (!parsed.success) throw new WebhookPayloadError(issuesOf(parsed.error, ['data']));
    return { known: true, event_id, event_type, data: parsed.data };
  }
  if (event_type === 'inventory') {
    const parsed = InventoryEventDataSchema.safeParse(data);
    if (!parsed.success) throw new WebhookPayloadError(issuesOf(parsed.error, ['data']));
    return { known: true, event_id, event_type, data: parsed.data };
  }
  return { known: false, event_id, event_type: UNKNOWN_EVENT_TYPE, received_event_type: event_type, data };
}
