import { ServiceError, type ServiceErrorOptions } from './service-error.js';

/** What a {@link QueueTimeoutError} knows about the wait it gave up. */
export interface QueueTimeoutErrorInit extends ServiceErrorOptions {
  /** The call's `maxQueueWait`, in milliseconds. */
  readonly maxQueueWait: number;
  /**
   * When the call would have started (epoch ms) if no call ahead of it had left, when the limiter could tell: the
   * reason it gave up at once. `undefined` when it waited until its time ran out.
   */
  readonly estimatedStartAt?: number | undefined;
  /**
   * Whether an earlier attempt of the same call was sent before this wait (a retry's wait timed out).
   * @default false
   */
  readonly mayHaveSucceeded?: boolean | undefined;
}

/**
 * A call could not start within its `maxQueueWait`: the calls ahead of it on its key's rate limit would have kept it
 * waiting longer. It rejects at once when its start, with every call ahead staying, would come later than that; else
 * when the time runs out. It used no slot and nothing was sent for that wait: {@link QueueTimeoutError.mayHaveSucceeded}
 * is `false` unless an earlier attempt of the same call was sent before a retry's wait (that attempt's error is the
 * `cause`).
 */
export class QueueTimeoutError extends ServiceError {
  static override readonly code: string = 'QUEUE_TIMEOUT';
  override name = 'QueueTimeoutError';
  /** `false` unless an earlier attempt of the call was sent: nothing was sent for the wait that timed out. */
  readonly mayHaveSucceeded: boolean;
  /** The call's `maxQueueWait`, in milliseconds. */
  readonly maxQueueWait: number;
  /** When the call would have started (epoch ms), if the limiter could tell. */
  readonly estimatedStartAt: number | undefined;

  constructor(message: string, init: QueueTimeoutErrorInit) {
    super(message, init);
    this.maxQueueWait = init.maxQueueWait;
    this.estimatedStartAt = init.estimatedStartAt;
    this.mayHaveSucceeded = init.mayHaveSucceeded ?? false;
  }
}
