import fc from 'fast-check';
import {
  ApiError,
  BadRequestError,
  ConnectionError,
  PortalError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  ValidationError,
} from 'invoicing-service-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { backoffDelay, defaultRetryPolicy } from '../../src/client/retry.js';

// The largest double below 1: what Math.random can return at most.
const JUST_UNDER_ONE = 1 - Number.EPSILON / 2;

describe('backoffDelay', () => {
  it.each([
    [1, 500, 375],
    [2, 1000, 750],
    [3, 2000, 1500],
    [4, 4000, 3000],
    [5, 8000, 6000],
    [6, 8000, 6000],
  ])('waits for attempt %i: %i ms without jitter, %i ms with the most jitter', (attempt, longest, shortest) => {
    expect(backoffDelay(attempt, () => 0)).toBe(longest);
    expect(backoffDelay(attempt, () => JUST_UNDER_ONE)).toBe(shortest);
  });

  it('doubles from 500 ms and stays at the 8 s cap however many attempts failed', () => {
    const delays = [1, 2, 3, 4, 5, 6, 10, 50].map((attempt) => backoffDelay(attempt, () => 0));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000, 8000]);
  });

  it('takes off a quarter at most, in proportion to the random draw, rounded to whole milliseconds', () => {
    expect(backoffDelay(1, () => 0.5)).toBe(438); // 500 × (1 − 0.125) = 437.5
    expect(backoffDelay(5, () => 0.5)).toBe(7000);
    expect(backoffDelay(3, () => 0.1)).toBe(1950);
  });

  it('stays between 75 % and 100 % of the capped base for every attempt and draw', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, draw) => {
          const base = Math.min(500 * 2 ** (attempt - 1), 8000);
          const delay = backoffDelay(attempt, () => draw);
          return Number.isInteger(delay) && delay >= base * 0.75 && delay <= base;
        },
      ),
      { numRuns: 300 },
    );
  });

  it('draws from Math.random when no random is given', () => {
    const random = vi.spyOn(Math, 'random').mockReturnValue(0);
    try {
      expect(backoffDelay(2)).toBe(1000);
      expect(random).toHaveBeenCalledTimes(1);
    } finally {
      random.mockRestore();
    }
  });
});

describe('defaultRetryPolicy', () => {
  afterEach(() => vi.restoreAllMocks());

  // With Math.random at 0, a backoff answer is exactly 500 × 2^(attempt − 1), so it is told apart from a Retry-After.
  const decide = (error: unknown, attempt = 1, retryWhenMaybeSent = false, idempotent = false) => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    return defaultRetryPolicy({ error, attempt, retryWhenMaybeSent, idempotent });
  };
  const rateLimited = (retryAfter?: number) => new RateLimitError({ status: 429, message: 'slow down', retryAfter });
  const connection = (mayHaveSucceeded: boolean) => new ConnectionError('reset', { mayHaveSucceeded });

  it('retries a 429 without Retry-After after the backoff, whether or not the request may have been acted on', () => {
    expect(decide(rateLimited(), 1)).toBe(500);
    expect(decide(rateLimited(), 3)).toBe(2000);
    expect(decide(rateLimited(), 3, true)).toBe(2000);
  });

  it('retries a 429 after its Retry-After, in milliseconds rounded up, up to 60 s', () => {
    expect(decide(rateLimited(2), 4)).toBe(2000);
    expect(decide(rateLimited(0.25))).toBe(250);
    expect(decide(rateLimited(1.0001))).toBe(1001);
    expect(decide(rateLimited(0))).toBe(0);
    expect(decide(rateLimited(60))).toBe(60_000);
  });

  it('gives up on a 429 whose Retry-After is longer than 60 s', () => {
    expect(decide(rateLimited(60.5))).toBeUndefined();
    expect(decide(rateLimited(3600), 1, true)).toBeUndefined();
  });

  it('retries a connection that failed before sending, and one after sending only with retryWhenMaybeSent', () => {
    expect(decide(connection(false), 2)).toBe(1000);
    expect(decide(connection(false), 2, true)).toBe(1000);
    expect(decide(connection(true), 2)).toBeUndefined();
    expect(decide(connection(true), 2, true)).toBe(1000);
  });

  it.each([
    ['a timeout after sending', () => new TimeoutError(30_000, { mayHaveSucceeded: true })],
    ['a timeout before sending', () => new TimeoutError(30_000, { mayHaveSucceeded: false })],
    ['a 500', () => new ServerError({ status: 500, message: 'boom' })],
    ['a 503', () => new ServerError({ status: 503, message: 'unavailable' })],
  ])('retries %s only with retryWhenMaybeSent', (_label, make) => {
    expect(decide(make(), 3)).toBeUndefined();
    expect(decide(make(), 3, true)).toBe(2000);
  });

  it.each([
    ['a ValidationError', () => new ValidationError('e-way bill model', [])],
    ['a 401', () => new UnauthorizedError({ status: 401, errorCode: 'UNAUTHORIZED', message: 'no' })],
    ['a 400', () => new BadRequestError({ status: 400, message: 'bad' })],
    ['a portal rejection', () => new PortalError({ status: 400, message: 'x', portalCode: 604 })],
    ['a plain Error', () => new Error('other')],
    ['a thrown string', () => 'oops'],
  ])('never retries %s', (_label, make) => {
    expect(decide(make(), 1)).toBeUndefined();
    expect(decide(make(), 1, true)).toBeUndefined();
  });

  it('retries an answer that may have been acted on (a 2xx it could not read) only with retryWhenMaybeSent', () => {
    const unreadable = new ApiError({ status: 200, message: 'not an answer', mayHaveSucceeded: true });
    expect(decide(unreadable, 5)).toBeUndefined();
    expect(decide(unreadable, 5, true)).toBe(8000);
  });
});
