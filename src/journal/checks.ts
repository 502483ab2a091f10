// The arguments of the journal's methods, checked once where they enter (both journals share these checks).
import { describeType } from '../internal/describe.js';
import type { JournalDocument, JournalIntent, JournalOutcome } from './journal.js';

function text(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`${name} must be a non-empty string; got ${describeType(value)}`);
  }
  return value;
}

/** A document of a journal call: `baseUrl` (no newline) and `docHashId`. */
export function checkDocument(document: unknown, method: string): JournalDocument {
  if (typeof document !== 'object' || document === null) {
    throw new TypeError(`journal.${method}: pass { baseUrl, docHashId }; got ${describeType(document)}`);
  }
  const { baseUrl, docHashId } = document as Partial<JournalDocument>;
  text(baseUrl, `journal.${method}: baseUrl`);
  text(docHashId, `journal.${method}: docHashId`);
  if ((baseUrl as string).includes('\n')) throw new TypeError(`journal.${method}: baseUrl must not contain a newline`);
  return { baseUrl: baseUrl as string, docHashId: docHashId as string };
}

/** A duration in milliseconds: finite, from `min`. */
export function checkMs(value: unknown, name: string, min = 1): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new TypeError(`${name} must be a finite number of milliseconds >= ${min}; got ${String(value)}`);
  }
  return value;
}

/** An owner or attempt id. */
export const checkId = (value: unknown, name: string): string => text(value, name);

/** An intent. */
export function checkIntent(intent: unknown): JournalIntent {
  const document = checkDocument(intent, 'recordIntent');
  const { owner, bodyHash, body, keyHash, inFlightMs } = intent as Partial<JournalIntent>;
  checkId(owner, 'journal.recordIntent: owner');
  if (typeof bodyHash !== 'string' || !/^[0-9a-f]{64}$/.test(bodyHash)) {
    throw new TypeError('journal.recordIntent: bodyHash must be the SHA-256 of the body in hex (journalBodyHash)');
  }
  if (typeof body !== 'string')
    throw new TypeError(`journal.recordIntent: body must be a string; got ${describeType(body)}`);
  if (keyHash !== undefined && typeof keyHash !== 'string') {
    throw new TypeError(`journal.recordIntent: keyHash must be a string; got ${describeType(keyHash)}`);
  }
  checkMs(inFlightMs, 'journal.recordIntent: inFlightMs', 0);
  return { ...document, owner: owner as string, bodyHash, body, keyHash, inFlightMs: inFlightMs as number };
}

/** An outcome. */
export function checkOutcome(outcome: unknown): JournalOutcome {
  const status = (outcome as { status?: unknown } | null)?.status;
  if (status === 'not-sent') return { status };
  if (status === 'generated') {
    const result = (outcome as { result?: { message?: unknown; outcome?: unknown } }).result;
    if (
      typeof result?.message !== 'string' ||
      (result.outcome !== 'generated' && result.outcome !== 'already-generated')
    ) {
      throw new TypeError("journal.recordOutcome: a 'generated' outcome needs result { outcome, message }");
    }
    return outcome as JournalOutcome;
  }
  if (status === 'refused') {
    const error = (outcome as { error?: unknown }).error;
    if (typeof error !== 'object' || error === null) {
      throw new TypeError("journal.recordOutcome: a 'refused' outcome needs error (the refusal's toJSON())");
    }
    return outcome as JournalOutcome;
  }
  throw new TypeError(
    `journal.recordOutcome: outcome.status must be 'generated', 'refused' or 'not-sent'; got ${describeType(status)}`,
  );
}
