import { ServiceError, type ServiceErrorOptions } from './service-error.js';

/**
 * A shared rate limiter (for example the Redis one of `invoicing-service-sdk/redis`, with `onUnavailable: 'fail'`)
 * could not decide a slot: its store failed or did not answer in time. The request was not sent, so
 * {@link RateLimiterUnavailableError.mayHaveSucceeded} is always `false` and the call can be tried again as it is.
 * The store's own error is the `cause`.
 */
export class RateLimiterUnavailableError extends ServiceError {
  static override readonly code: string = 'RATE_LIMITER_UNAVAILABLE';
  override name = 'RateLimiterUnavailableError';
  /** Always `false`: nothing was sent. */
  readonly mayHaveSucceeded = false as const;

  constructor(message: string, options: ServiceErrorOptions = {}) {
    super(message, options);
  }
}

/**
 * A shared rate limiter's store refused it for a reason that waiting will not fix: a Redis user without the right to
 * run scripts (`NOPERM`), a password Redis refuses or requires (`WRONGPASS`, `NOAUTH`), a script Redis cannot load
 * (`NOSCRIPT` after a load), or a key of the wrong type at the limiter's prefix (`WRONGTYPE`). Not an outage: calls reject with this error whatever `onUnavailable` says, and
 * nothing is sent. The message names what is missing; the store's own error is the `cause`.
 */
export class RateLimiterConfigurationError extends ServiceError {
  static override readonly code: string = 'RATE_LIMITER_CONFIGURATION';
  override name = 'RateLimiterConfigurationError';
  /** Always `false`: nothing was sent. */
  readonly mayHaveSucceeded = false as const;

  constructor(message: string, options: ServiceErrorOptions = {}) {
    super(message, options);
  }
}
