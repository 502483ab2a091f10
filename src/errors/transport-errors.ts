import type { RequestSummary } from './api-error.js';
import { ServiceError, type ServiceErrorOptions } from './service-error.js';

/** What a transport error is built from. */
export interface TransportErrorInit {
  /** Whether the request may have reached the service, so that it may have acted on it. */
  mayHaveSucceeded: boolean;
  request?: RequestSummary | undefined;
  cause?: unknown;
  /**
   * Whether an earlier request of the same call may have reached the service: the error then says the service may
   * have acted (`mayHaveSucceeded: true`), whatever this attempt did.
   * @default false
   */
  earlierSend?: boolean | undefined;
}

/** What an error made after an earlier request of its call may have reached the service adds to its message. */
export const EARLIER_SEND_NOTE =
  'an earlier attempt of this call may have reached the service, so it may have acted on it';

/** `message`, with {@link EARLIER_SEND_NOTE} when only an earlier request makes the error "may have succeeded". */
export function earlierSendMessage(
  message: string,
  init: { mayHaveSucceeded?: boolean | undefined; earlierSend?: boolean | undefined },
): string {
  return init.earlierSend === true && init.mayHaveSucceeded !== true ? `${message} (${EARLIER_SEND_NOTE})` : message;
}

/**
 * The connection failed: refused, DNS failure, reset, or an answer cut off.
 * When {@link ConnectionError.mayHaveSucceeded} is true the request was sent and the service may have
 * generated the e-way bill: check before trying again (see `isAlreadyGenerated`).
 */
export class ConnectionError extends ServiceError {
  static override readonly code: string = 'CONNECTION_ERROR';
  override name = 'ConnectionError';
  /** Whether the request may have reached the service. False only when it certainly did not (refused, DNS). */
  readonly mayHaveSucceeded: boolean;
  /** The method and URL of the request, never its headers. */
  readonly request: RequestSummary | undefined;

  constructor(message: string, init: TransportErrorInit) {
    super(earlierSendMessage(message, init), { cause: init.cause });
    this.mayHaveSucceeded = init.mayHaveSucceeded || init.earlierSend === true;
    this.request = init.request;
  }
}

/**
 * An attempt took longer than its timeout and was abandoned.
 * When {@link TimeoutError.mayHaveSucceeded} is true the request was sent, and the service may still have acted on it.
 */
export class TimeoutError extends ServiceError {
  static override readonly code: string = 'TIMEOUT';
  override name = 'TimeoutError';
  /** Whether the request was sent before the time ran out. */
  readonly mayHaveSucceeded: boolean;
  /** The timeout of the attempt, in milliseconds. */
  readonly timeout: number;
  /** The method and URL of the request, never its headers. */
  readonly request: RequestSummary | undefined;

  constructor(timeout: number, init: TransportErrorInit) {
    super(
      earlierSendMessage(
        `The request did not complete within ${timeout} ms${init.mayHaveSucceeded ? '; it was sent, so the service may have acted on it' : ''}`,
        init,
      ),
      { cause: init.cause },
    );
    this.mayHaveSucceeded = init.mayHaveSucceeded || init.earlierSend === true;
    this.timeout = timeout;
    this.request = init.request;
  }
}

/**
 * Whether the service may have acted on the request despite `error`: true for a `TimeoutError` or `ConnectionError`
 * after sending, a 5xx `ServerError`, or a 2xx that was not a success answer. After such an error an e-way bill may
 * exist: send the same request once more and treat `isAlreadyGenerated(error)` as success (see the README).
 * @example if (mayHaveSucceeded(error)) await reconcile(doc);
 */
export function mayHaveSucceeded(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { mayHaveSucceeded?: unknown }).mayHaveSucceeded === true &&
    error instanceof ServiceError
  );
}

/**
 * The caller's signal aborted the call after its request may have been written: the service may have received it and
 * generated the e-way bill. `mayHaveSucceeded` is always true, and `cause` is the signal's reason. An abort before
 * anything was sent is still a plain `AbortError` (a `DOMException`): nothing happened.
 *
 * @example
 * catch (error) { if (error instanceof AbortedAfterSendError) queueForReconcile(docHashId) }
 */
export class AbortedAfterSendError extends ServiceError {
  static override readonly code: string = 'ABORTED_AFTER_SEND';
  override name = 'AbortedAfterSendError';
  /** Always true: the request may have reached the service. */
  readonly mayHaveSucceeded = true as const;
  /** The method and URL of the request, never its headers. */
  readonly request: RequestSummary | undefined;

  constructor(init: { request?: RequestSummary | undefined; cause?: unknown; attempts?: number | undefined }) {
    super(
      'The call was aborted after its request may have been sent; the service may have acted on it (check before sending again)',
      { cause: init.cause },
    );
    this.request = init.request;
  }
}

/**
 * The error of a call that failed, after an earlier request of it may have reached the service, with an error that
 * was not built knowing that (a key function's, a partner's rate limiter's): a new error, made once, that says the
 * service may have acted (`mayHaveSucceeded: true`), the original as its `cause`. An abort becomes an
 * `AbortedAfterSendError`. An error that already says so is returned as it is. The SDK's own errors are built right
 * where they are made (`earlierSend`); this is for the others.
 */
export function failedAfterEarlierSend(error: unknown, request: RequestSummary | undefined): Error {
  if (mayHaveSucceeded(error)) return error as Error;
  if (error instanceof Error && error.name === 'AbortError' && !(error instanceof ServiceError)) {
    return new AbortedAfterSendError({ request, cause: (error as { cause?: unknown }).cause ?? error });
  }
  const why = error instanceof Error ? error.message : String(error);
  const made = new ServiceError(`The call failed (${why.slice(0, 300)}) after ${EARLIER_SEND_NOTE}`, { cause: error });
  Object.defineProperty(made, 'mayHaveSucceeded', { value: true, enumerable: true });
  return made;
}

// QueueTimeoutError lives here, beside the other errors of a request that was not sent, rather than in a file of its
// own: the root exports it and the lazily loaded place in line (src/throttle/queue-place.ts) makes it, so its module is
// a chunk the client's first load fetches; here it shares one that is fetched anyway.

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
    this.mayHaveSucceeded = init.mayHaveSucceeded === true;
  }
}
