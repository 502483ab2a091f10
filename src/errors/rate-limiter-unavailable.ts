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
