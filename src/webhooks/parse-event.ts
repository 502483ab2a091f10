import { validationIssue } from '../errors/validation-error.js';
import { WebhookPayloadError } from './errors.js';
import { checkFields, DOCUMENT_EVENT_FIELDS, INVENTORY_EVENT_FIELDS } from './event-fields.js';
import { UNKNOWN_EVENT_TYPE, type WebhookEvent } from './events.js';

const MAX_EVENT_ID_LENGTH = 256;

function fail(message: string, cause?: unknown): never {
  throw new WebhookPayloadError([validationIssue([], message)], { cause });
}

// Stateless in fatal mode, so one decoder serves every call.
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Keys that can change an object's prototype when a partner copies the event (`Object.assign`, a spread merge). */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const NAMES_PROTOTYPE_KEY = /__proto__|constructor|prototype/;
/**
 * Whether a body may hold such a key: it names one, or holds a `\u` escape, which can spell any of them
 * (`"\u005f_proto__"`). Two scans: one alternation with the escape in it was slower (docs/benchmarks.md).
 */
const mayHoldPrototypeKey = (text: string) => NAMES_PROTOTYPE_KEY.test(text) || text.includes('\\u');

/** The parsed body, and the prototype keys that were dropped from it (anywhere in it). */
function parseJson(body: string | Uint8Array): { json: unknown; dropped: string[] } {
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
  const dropped: string[] = [];
  try {
    // The reviver runs only for a body that names such a key or holds an escape: the common event pays nothing for it.
    const json: unknown = mayHoldPrototypeKey(text)
      ? JSON.parse(text, (key, value: unknown) => {
          if (!PROTOTYPE_KEYS.has(key)) return value;
          dropped.push(key);
          return undefined;
        })
      : JSON.parse(text);
    return { json, dropped };
  } catch (error) {
    fail(text.trim() === '' ? 'The body is empty' : 'The body is not valid JSON', error);
  }
}

/** Options of {@link parseWebhookEvent}. */
export interface ParseWebhookEventOptions {
  /** Refuse a known event type whose `data` does not match the spec's shape, instead of delivering it unrecognised. */
  readonly strictPayload?: boolean | undefined;
}

const MAX_LOGGED_ID_LENGTH = 64;
// Control and format characters (line breaks, escapes, bidi overrides) would let an id forge or hide log lines.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/** An id as received, made safe to log: printable, at most 64 characters, never cut inside a surrogate pair. */
function loggableId(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value !== 'string' || value === '') return undefined;
  const printable = value.replace(UNPRINTABLE, '?');
  if (printable.length <= MAX_LOGGED_ID_LENGTH) return printable;
  let cut = printable.slice(0, MAX_LOGGED_ID_LENGTH);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** The id an envelope carries: its `event_id`, or `id` when `event_id` is absent (renamed). */
function receivedEventId(event: Record<string, unknown>): string | undefined {
  return loggableId(event.event_id) ?? (event.event_id === undefined ? loggableId(event.id) : undefined);
}

function envelopeIssue(value: unknown, name: 'event_id' | 'event_type'): string | undefined {
  if (value === undefined) return 'is missing';
  if (typeof value !== 'string') return 'expected a string';
  if (value === '') return 'must not be empty';
  if (name === 'event_id' && value.length > MAX_EVENT_ID_LENGTH)
    return `must be at most ${MAX_EVENT_ID_LENGTH} characters`;
  return undefined;
}

/**
 * Parses a webhook body whose signature was already checked. Lenient in what it receives: extra fields are kept, and
 * a known event type whose `data` does not match the spec's shape comes back unrecognised (`known: false`, with
 * `issues`), unless `strictPayload` is set.
 * @throws {WebhookPayloadError} When the body is not UTF-8 JSON, not an object, or has no usable `event_id` or
 *   `event_type`; with `strictPayload`, also when a known event's `data` does not match the spec.
 */
export function parseWebhookEvent(body: string | Uint8Array, options?: ParseWebhookEventOptions): WebhookEvent {
  const { json, dropped } = parseJson(body);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    fail('Expected a JSON object (the event envelope with event_id, event_type and data)');
  }
  // The event is the parsed envelope itself (fresh, owned by nobody else), so fields the service adds later are kept
  // without a copy; the SDK's own fields are set on it.
  const event = json as Record<string, unknown>;
  const type = event.event_type;
  const idProblem = envelopeIssue(event.event_id, 'event_id');
  const typeProblem = envelopeIssue(type, 'event_type');
  if (idProblem !== undefined || typeProblem !== undefined) {
    const issues = [];
    if (idProblem !== undefined) issues.push(validationIssue(['event_id'], idProblem));
    if (typeProblem !== undefined) issues.push(validationIssue(['event_type'], typeProblem));
    throw new WebhookPayloadError(issues, { receivedEventId: receivedEventId(event) });
  }
  const fields =
    type === 'inventory' ? INVENTORY_EVENT_FIELDS : type === 'document' ? DOCUMENT_EVENT_FIELDS : undefined;
  const found = fields === undefined ? undefined : checkFields(fields, event.data);
  // A body with a prototype key (`__proto__`, `constructor`, `prototype`) is not the spec's: the key is dropped, and
  // the event is not `known`.
  const issues =
    found === undefined || dropped.length === 0
      ? found
      : [
          ...found,
          ...dropped.map((key) =>
            validationIssue([key], "a key that could change an object's prototype when copied; it was dropped"),
          ),
        ];
  if (issues !== undefined && issues.length === 0) {
    event.known = true;
    return event as unknown as WebhookEvent;
  }
  if (issues !== undefined && options?.strictPayload === true) {
    throw new WebhookPayloadError(issues, { receivedEventId: receivedEventId(event) });
  }
  const data = event.data;
  event.known = false;
  event.event_type = UNKNOWN_EVENT_TYPE;
  event.received_event_type = type;
  event.data = data;
  event.issues = issues === undefined ? [] : issues;
  return event as unknown as WebhookEvent;
}
