import type { RequestSummary } from './api-error.js';
import { ServiceError } from './service-error.js';

/** What a transport error is built from. */
export interface TransportErrorInit {
  /** Whether the request may have reached the service, so that it may have acted on it. */
  mayHaveSucceeded: boolean;
  request?: RequestSummary | undefined;
  cause?: unknown;
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
    super(message, { cause: init.cause });
    this.mayHaveSucceeded = init.mayHaveSucceeded;
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
      `The request did not complete within ${timeout} ms${init.mayHaveSucceeded ? '; it was sent, so the service may have acted on it' : ''}`,
      { cause: init.cause },
    );
    this.mayHaveSucceeded = init.mayHaveSucceeded;
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
 * `error` as the outcome of a call one of whose earlier attempts may have reached the service: whatever failed
 * afterwards (a 429, a refused connection, an abort before the resend), the service may have acted, and the outcome
 * must say so (issue 17, finding 4). An `AbortError` becomes an {@link AbortedAfterSendError}; an SDK error gets
 * `mayHaveSucceeded: true` and a sentence in its message; anything else is wrapped in a `ServiceError` that says so.
 * Internal.
 */
export function withEarlierSend(error: unknown, request: RequestSummary | undefined): Error {
  if (mayHaveSucceeded(error)) return error as Error;
  if (error instanceof Error && error.name === 'AbortError' && !(error instanceof ServiceError)) {
    return new AbortedAfterSendError({ request, cause: (error as { cause?: unknown }).cause ?? error });
  }
  const note = 'an earlier attempt of this call may have reached the service, so it may have acted on it';
  if (error instanceof ServiceError) {
    Object.defineProperty(error, 'mayHaveSucceeded', { value: true, enumerable: true, configurable: true });
    error.message = `${error.message} (${note})`;
    return error;
  }
  const wrapped = new ServiceError(`The call failed after ${note}`, { cause: error });
  Object.defineProperty(wrapped, 'mayHaveSucceeded', { value: true, enumerable: true, configurable: true });
  return wrapped;
}
