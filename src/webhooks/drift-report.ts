// What the handlers tell `logger.warn` about authentic events the spec did not foresee: one line per event, never the
// body, the signature or the secret. Lenient in what they receive, never silent (README, Webhooks).
import { callUserCallback } from '../internal/callback.js';
import type { WebhookPayloadError } from './errors.js';
import type { WebhookEvent } from './events.js';
import type { ResolvedHandlerOptions } from './handler-options.js';

type Reporting = Pick<ResolvedHandlerOptions, 'logger'>;

/** Keys already reported, per handler and kind: the last {@link MAX_REMEMBERED} of each. */
const reported = new WeakMap<object, { drift: Set<string>; refused: Set<string> }>();
const MAX_REMEMBERED = 1000;
const MAX_LISTED_ISSUES = 10;
/** Where an envelope's drift shows: its id, its type, or the body as a whole (not a JSON object). */
const ENVELOPE_FIELDS = new Set(['event_id', 'event_type', '(root)']);

/** Whether `key` is reported for the first time by this handler (and remembers it). */
function firstTime(options: Reporting, kind: 'drift' | 'refused', key: string): boolean {
  let memory = reported.get(options);
  if (!memory) {
    memory = { drift: new Set(), refused: new Set() };
    reported.set(options, memory);
  }
  const seen = memory[kind];
  if (seen.has(key)) return false;
  seen.add(key);
  if (seen.size > MAX_REMEMBERED) seen.delete(seen.values().next().value as string);
  return true;
}

// Control characters (newlines, ANSI escapes, C1, the Unicode line separators) from the sender's event id, type or
// field names would forge log lines or recolour a terminal: each is written as its JSON escape.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const escapeControl = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** One line, whatever the authentic sender put in the fields it names: never a forged line or a terminal escape. */
function oneLine(line: string): string {
  return line.replace(CONTROL, escapeControl);
}

function warn(options: Reporting, line: string, details: Record<string, unknown>): void {
  const { logger } = options;
  const safe = oneLine(line);
  callUserCallback('logger.warn', () => logger.warn(safe, details), [], undefined);
}

function listIssues(all: readonly { field: string; message: string }[]) {
  const issues = all.slice(0, MAX_LISTED_ISSUES).map(({ field, message }) => ({ field, message }));
  return { issues, listed: issues.map(({ field, message }) => `${field}: ${message}`).join('; ') };
}

/**
 * Reports an event that reached `onEvent` as `known: false` (a type the SDK does not know, or a known type whose data
 * drifted from the spec) once per event id: the event id, the type as received and the issues (paths and short
 * messages).
 */
export function reportDrift(options: Reporting, event: WebhookEvent): void {
  if (event.known !== false) return;
  const id = event.event_id;
  if (!firstTime(options, 'drift', id)) return;
  const type = String(event.received_event_type).slice(0, 60);
  const { issues, listed } = listIssues(event.issues);
  const line =
    `invoicing-service-sdk: webhook event ${id} of type '${type}' does not match the spec; onEvent received it ` +
    `as known: false (route it by received_event_type, or store it for review)${listed ? `. ${listed}` : ''}`;
  warn(options, line, { eventId: id, receivedEventType: type, issues });
}

/**
 * Reports a correctly signed body refused with 400 (its envelope drifted: no usable `event_id` or `event_type`, not
 * a JSON object; or `strictPayload` refused its data) once per signed body, so a redelivery or a replay of it adds no
 * line. Called only after the signature matched: a forged request never reaches it.
 */
export function reportRefusedEvent(options: Reporting, error: WebhookPayloadError, signature: string): void {
  if (!firstTime(options, 'refused', signature.trim().toLowerCase())) return;
  const eventId = error.receivedEventId;
  const { issues, listed } = listIssues(error.issues);
  const fields = [...new Set(issues.map((issue) => issue.field))];
  const envelope = fields.some((field) => ENVELOPE_FIELDS.has(field));
  const why = envelope
    ? `its envelope does not match the spec (${listed}), so it cannot be de-duplicated`
    : `strictPayload is set and its data does not match the spec (${listed})`;
  const line =
    `invoicing-service-sdk: webhook event ${eventId === undefined ? '(no event id)' : JSON.stringify(eventId)} is ` +
    `signed with your secret but was refused with 400: ${why}. Look it up in the service's dashboard and report ` +
    'the drift to the service.';
  warn(options, line, { status: 400, eventId, fields, issues });
}
