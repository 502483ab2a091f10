// When a call is sent again: the retry policy the transport's loop asks after each failed attempt (./transport.ts).
import { ApiError, RateLimitError, RedirectError, ServerError } from '../errors/api-error.js';
import { AbortedAfterSendError, ConnectionError, TimeoutError } from '../errors/transport-errors.js';

/** What a retry policy is asked after a failed attempt. */
export interface RetryContext {
  readonly error: unknown;
  /** 1 after the first attempt failed. */
  readonly attempt: number;
  /** Whether the caller accepted retrying failures after which the service may have acted. */
  readonly retryWhenMaybeSent: boolean;
  /**
   * Whether the call is idempotent: its method is GET, PUT or DELETE (sending it twice has the effect of sending it
   * once) and the caller did not pass `idempotent: false`.
   */
  readonly idempotent: boolean;
}

/** A retry policy: the delay in milliseconds before the next attempt, or `undefined` to stop. */
export type RetryPolicy = (context: RetryContext) => number | undefined;

/** Backoff: 500 ms × 2^(attempt-1), capped at 8 s, with up to 25 % jitter downwards. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(500 * 2 ** (attempt - 1), 8000);
  return Math.round(base * (1 - 0.25 * random()));
}

/** A `Retry-After` longer than this is not waited for: the error is returned to the caller instead. */
export const MAX_RETRY_AFTER_SECONDS = 60;

/** The statuses after which an idempotent call is sent again: the gateway or the service was briefly unavailable. */
const IDEMPOTENT_RETRY_STATUSES = new Set([502, 503, 504]);

/**
 * The default policy. Retries when the service certainly did not act: a 429 (after its `Retry-After`, or backoff) and
 * a connection that failed before sending. An idempotent call (GET, PUT, DELETE) is also retried after a timeout, a
 * connection failure after sending, and a 502/503/504. With `retryWhenMaybeSent`, any call is also retried after
 * those and any 5xx. A refusal in the service's error envelope (a portal error, an unknown document, a refused key) is
 * its answer, whatever the status: never retried.
 */
export const defaultRetryPolicy: RetryPolicy = ({ error, attempt, retryWhenMaybeSent, idempotent }) => {
  if (error instanceof RateLimitError) {
    if (error.retryAfter === undefined) return backoffDelay(attempt);
    return error.retryAfter > MAX_RETRY_AFTER_SECONDS ? undefined : Math.ceil(error.retryAfter * 1000);
  }
  // A redirect answers the same way every time, and following it is what the SDK refuses to do; an abort is the caller's.
  if (error instanceof RedirectError || error instanceof AbortedAfterSendError) return undefined;
  const again = retryWhenMaybeSent || idempotent;
  if (error instanceof ConnectionError) return !error.mayHaveSucceeded || again ? backoffDelay(attempt) : undefined;
  if (error instanceof TimeoutError) return again ? backoffDelay(attempt) : undefined;
  if (error instanceof ServerError) {
    return retryWhenMaybeSent || (idempotent && IDEMPOTENT_RETRY_STATUSES.has(error.status))
      ? backoffDelay(attempt)
      : undefined;
  }
  if (retryWhenMaybeSent && error instanceof ApiError && error.mayHaveSucceeded) return backoffDelay(attempt);
  return undefined;
};
