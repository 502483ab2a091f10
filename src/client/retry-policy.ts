import { ApiError, RateLimitError, RedirectError, ServerError } from '../errors/api-error.js';
import { ConnectionError, TimeoutError } from '../errors/transport-errors.js';

/** What a retry policy is asked after a failed attempt. */
export interface RetryContext {
  readonly error: unknown;
  /** 1 after the first attempt failed. */
  readonly attempt: number;
  /** Whether the caller accepted retrying failures after which the service may have acted. */
  readonly retryWhenMaybeSent: boolean;
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

/**
 * The default policy. Retries only when the service certainly did not act: a 429 (after its `Retry-After`,
 * or backoff) and a connection that failed before sending. With `retryWhenMaybeSent`, also timeouts,
 * connection failures after sending and 5xx answers.
 */
export const defaultRetryPolicy: RetryPolicy = ({ error, attempt, retryWhenMaybeSent }) => {
  if (error instanceof RateLimitError) {
    if (error.retryAfter === undefined) return backoffDelay(attempt);
    return error.retryAfter > MAX_RETRY_AFTER_SECONDS ? undefined : Math.ceil(error.retryAfter * 1000);
  }
  // A redirect answers the same way every time, and following it is what the SDK refuses to do.
  if (error instanceof RedirectError) return undefined;
  if (error instanceof ConnectionError) {
    return !error.mayHaveSucceeded || retryWhenMaybeSent ? backoffDelay(attempt) : undefined;
  }
  if (retryWhenMaybeSent && (error instanceof TimeoutError || error instanceof ServerError))
    return backoffDelay(attempt);
  if (retryWhenMaybeSent && error instanceof ApiError && error.mayHaveSucceeded) return backoffDelay(attempt);
  return undefined;
};
