import {
  ConnectionError,
  ForbiddenError,
  InvalidHashIdError,
  PortalError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
} from 'invoicing-service-sdk';
import { type JournalRecord, journalBodyHash } from 'invoicing-service-sdk/journal';
import { describe, expect, it } from 'vitest';
import { portalErrorCategory } from '../../src/internal/portal-error-categories.js';
import { outcomeOfError, planSend } from '../../src/journal/decide.js';

const hash = journalBodyHash('{"a":1}');
const record = (fields: Partial<JournalRecord>): JournalRecord => ({
  baseUrl: 'https://service.test',
  docHashId: 'doc',
  status: 'sent-maybe',
  bodyHash: hash,
  body: '{"a":1}',
  keyHash: undefined,
  attempt: 'a1',
  sentAt: 1000,
  inFlightUntil: 21_000,
  at: 1000,
  result: undefined,
  error: undefined,
  ...fields,
});

/** The first portal code of a category (from the portal's list), and 604. */
const codeOf = (category: string) => {
  for (let code = 100; code < 1000; code++) if (code !== 604 && portalErrorCategory(code) === category) return code;
  throw new Error(`no code of category ${category}`);
};
// As the client maps them: the service's refusal in its envelope is definitive whatever the status (a 502 from a gateway).
const portal = (portalCode: number, status = 400) =>
  new PortalError({
    status,
    errorCode: `PORTAL_ERROR_${portalCode}`,
    message: 'refused',
    portalCode,
    body: { success: false },
    mayHaveSucceeded: false,
  });

describe('planSend', () => {
  it('returns a generated record without a request, and refuses the same refused body unless retryRefused', () => {
    const generated = record({ status: 'generated', body: undefined });
    expect(planSend(generated, hash, 5000)).toEqual({ kind: 'generated', record: generated });
    const refused = record({ status: 'refused', body: undefined, error: { code: 'PORTAL_ERROR' } });
    expect(planSend(refused, hash, 5000)).toEqual({ kind: 'refused', record: refused });
    expect(planSend(refused, hash, 5000, { retryRefused: true })).toEqual({
      kind: 'send',
      waitMs: 0,
      mayAlreadyExist: false,
      body: 'new',
    });
    expect(planSend(refused, journalBodyHash('{"a":2}'), 5000)).toMatchObject({ kind: 'send', mayAlreadyExist: false });
    expect(planSend(undefined, hash, 5000)).toEqual({ kind: 'send', waitMs: 0, mayAlreadyExist: false, body: 'new' });
  });

  it('recovers a document that may have been sent: waits out its flight on the journal clock, resolves the recorded body first', () => {
    const maybe = record({});
    expect(planSend(maybe, hash, 5000)).toEqual({ kind: 'send', waitMs: 16_000, mayAlreadyExist: true, body: 'new' });
    expect(planSend(maybe, hash, 30_000)).toMatchObject({ waitMs: 0, mayAlreadyExist: true });
    expect(planSend(maybe, journalBodyHash('{"a":2}'), 5000)).toMatchObject({
      body: 'recorded',
      mayAlreadyExist: true,
    });
  });
});

describe('outcomeOfError', () => {
  it('records a definitive refusal of the body with its JSON form: validation, state other than 604, INVALID_HASH_ID', () => {
    for (const error of [portal(codeOf('validation')), portal(codeOf('state')), portal(codeOf('validation'), 502)]) {
      expect(outcomeOfError(error, false)).toEqual({ status: 'refused', error: error.toJSON() });
    }
    const invalid = new InvalidHashIdError({ status: 400, errorCode: 'INVALID_HASH_ID', message: 'no such document' });
    expect(outcomeOfError(invalid, true)).toMatchObject({ status: 'refused', error: { code: 'INVALID_HASH_ID' } });
  });

  it("takes a 604 after a possible earlier send as the bill, and forgets attempts that made none ('auth', 'retryable', keys, 429)", () => {
    expect(outcomeOfError(portal(604), true)).toMatchObject({
      status: 'generated',
      result: { outcome: 'already-generated' },
    });
    for (const error of [
      portal(604),
      portal(codeOf('auth')),
      portal(codeOf('retryable')),
      new UnauthorizedError({ status: 401, errorCode: 'UNAUTHORIZED', message: 'bad key' }),
      new ForbiddenError({ status: 401, errorCode: 'FORBIDDEN', message: 'not allowed' }),
      new RateLimitError({ status: 429, message: 'slow down' }),
      new ConnectionError('refused', { mayHaveSucceeded: false }),
      new DOMException('stopped', 'AbortError'),
    ]) {
      expect(outcomeOfError(error, false), String(error)).toEqual({ status: 'not-sent' });
    }
  });

  it('leaves the record unknown after an error that may have succeeded, or that does not say', () => {
    for (const error of [
      new TimeoutError(1000, { mayHaveSucceeded: true }),
      new ConnectionError('reset', { mayHaveSucceeded: true }),
      new ServerError({ status: 503, message: 'down' }),
      new Error('a custom fetch failed'),
    ]) {
      expect(outcomeOfError(error, true), String(error)).toBeUndefined();
    }
  });
});
