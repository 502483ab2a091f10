import { ServiceError, type ServiceErrorOptions } from './service-error.js';
import { EARLIER_SEND_NOTE } from './transport-errors.js';

/** The options of a rate limiter's error: a `ServiceErrorOptions`, and whether an earlier request was sent. */
export interface RateLimiterErrorOptions extends ServiceErrorOptions {
  /**
   * Whether an earlier request of the same call may have reached the service (a resend, such as
   * `createEwayBillOnce`'s second request, whose limiter then failed): `mayHaveSucceeded` is then `true`.
   * @default false
   */
  earlierSend?: boolean | undefined;
}

/**
 * A shared rate limiter (for example the Redis one of `invoicing-service-sdk/redis`, with `onUnavailable: 'fail'`)
 * could not decide a slot: its store failed or did not answer in time. The request was not sent:
 * {@link RateLimiterUnavailableError.mayHaveSucceeded} is `false` and the call can be tried again as it is, unless an
 * earlier request of the same call may have reached the service (a resend), when it is `true`.
 * The store's own error is the `cause`.
 */
export class RateLimiterUnavailableError extends ServiceError {
  static override readonly code: string = 'RATE_LIMITER_UNAVAILABLE';
  override name = 'RateLimiterUnavailableError';
  /** `false`: this request was not sent; `true` only when an earlier request of the same call may have been. */
  readonly mayHaveSucceeded: boolean;

  constructor(message: string, options: RateLimiterErrorOptions = {}) {
    super(options.earlierSend === true ? `${message} (${EARLIER_SEND_NOTE})` : message, options);
    this.mayHaveSucceeded = options.earlierSend === true;
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
  /** `false`: this request was not sent; `true` only when an earlier request of the same call may have been. */
  readonly mayHaveSucceeded: boolean;

  constructor(message: string, options: RateLimiterErrorOptions = {}) {
    super(options.earlierSend === true ? `${message} (${EARLIER_SEND_NOTE})` : message, options);
    this.mayHaveSucceeded = options.earlierSend === true;
  }
}
