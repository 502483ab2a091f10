// The journal's rules for one document, as pure functions over its state: the file journal applies them in memory
// and writes the resulting state; the Redis journal's script applies the same rules in Lua.
import type { JournalIntent, JournalOutcome, JournalRecord } from './journal.js';

/** One document's state: its record, and the record an unsent attempt puts back. */
export interface DocumentState {
  readonly record: JournalRecord;
  readonly before: JournalRecord | undefined;
}

/** The key of a document in maps and files: base URL and id, which neither contains a newline. */
export const documentKey = (baseUrl: string, docHashId: string): string => `${baseUrl}\n${docHashId}`;

/** The state after an intent (see the rules on `Journal`). */
export function withIntent(
  state: DocumentState | undefined,
  intent: JournalIntent,
  attempt: string,
  now: number,
): DocumentState {
  const previous = state?.record;
  const inFlightUntil = Math.max(
    now + intent.inFlightMs,
    previous?.status === 'sent-maybe' ? previous.inFlightUntil : Number.NEGATIVE_INFINITY,
  );
  const record: JournalRecord = {
    baseUrl: intent.baseUrl,
    docHashId: intent.docHashId,
    status: 'sent-maybe',
    bodyHash: intent.bodyHash,
    body: intent.body,
    keyHash: intent.keyHash,
    attempt,
    sentAt: now,
    inFlightUntil,
    at: now,
    result: undefined,
    error: undefined,
  };
  return { record, before: previous?.status === 'generated' ? undefined : previous };
}

/** The state after an outcome, or `undefined` when the document has no record left; `state` itself when ignored. */
export function withOutcome(
  state: DocumentState | undefined,
  attempt: string,
  outcome: JournalOutcome,
  now: number,
): DocumentState | undefined {
  if (outcome.status === 'generated') {
    const base = state?.record;
    if (base === undefined) return state;
    const record = { ...base, status: 'generated', body: undefined, at: now, result: outcome.result, error: undefined };
    return { record: record as JournalRecord, before: undefined };
  }
  if (state === undefined || state.record.status !== 'sent-maybe' || state.record.attempt !== attempt) return state;
  if (outcome.status === 'not-sent') return state.before && { record: state.before, before: undefined };
  const record = {
    ...state.record,
    status: 'refused',
    body: undefined,
    at: now,
    result: undefined,
    error: outcome.error,
  };
  return { record: record as JournalRecord, before: undefined };
}

/** Whether compaction drops the record: a known outcome older than `maxAgeMs`. Never an unknown one. */
export const isExpired = (record: JournalRecord, maxAgeMs: number, now: number): boolean =>
  record.status !== 'sent-maybe' && now - record.at > maxAgeMs;
