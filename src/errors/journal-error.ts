import { ServiceError, type ServiceErrorOptions } from './service-error.js';

/**
 * A journal (`invoicing-service-sdk/journal`, or the Redis journal of `invoicing-service-sdk/redis`) could not be read
 * or written: its file or its store failed. A journal that fails before the request leaves means the request is not
 * sent, so {@link JournalError.mayHaveSucceeded} is `false`; the store's own error is the `cause`.
 */
export class JournalError extends ServiceError {
  static override readonly code: string = 'JOURNAL_ERROR';
  override name = 'JournalError';
  /** Always `false`: a journal error stops a request before it is sent. */
  readonly mayHaveSucceeded = false as const;

  constructor(message: string, options: ServiceErrorOptions = {}) {
    super(message, options);
  }
}

/** Another live process holds the file journal (its lock file names the process). Nothing was sent. */
export class JournalLockedError extends JournalError {
  static override readonly code: string = 'JOURNAL_LOCKED';
  override name = 'JournalLockedError';
}

/**
 * An intent was recorded by an owner that no longer holds the document's claim: its lease ran out and another
 * process claimed the document. The request must not be sent; claim again, then look at the record.
 */
export class JournalClaimLostError extends JournalError {
  static override readonly code: string = 'JOURNAL_CLAIM_LOST';
  override name = 'JournalClaimLostError';
}
