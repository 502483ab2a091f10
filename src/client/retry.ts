// Where a request is retried: the retry loop (`sendWithRetries`: rate-limit slot, hooks, one attempt, the policy's
// delay) and the default policy. The attempt itself is in transport.ts; the mapping of an answer to an error is in
// ../errors/map-response.ts.
import type { KyInstance } from 'ky';
import { ApiError, RateLimitError, RedirectError, type RequestSummary, ServerError } from '../errors/api-error.js';
import type { AnswerInfo } from '../errors/map-response.js';
import { ServiceError } from '../errors/service-error.js';
import { ConnectionError, TimeoutError } from '../errors/transport-errors.js';
import { abortableDelay, abortError } from '../internal/abort.js';
import type { RateLimiter, ReleaseSlot, SlotOutcome } from '../throttle/rate-limiter.js';
import { type ClientHooks, emit, type Logger } from './events.js';
import { sendAttempt } from './transport.js';

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

/** What the retry loop needs from its client; made once per client. */
export interface Sender {
  readonly http: KyInstance;
  readonly fetch: typeof globalThis.fetch;
  readonly limiter: RateLimiter;
  readonly keyId: string;
  readonly hooks: ClientHooks;
  readonly logger: Logger | undefined;
  readonly retryPolicy: RetryPolicy;
  /** Replaces the key in text that goes into errors. */
  readonly scrub: (text: string) => string;
  /** Whether an answer is the service's success answer. */
  readonly isSuccess: (answer: AnswerInfo) => boolean;
  /** The typed error of an answer that is not a success. */
  readonly toError: (answer: AnswerInfo) => ApiError;
}

/** One call: what is sent, and its per-call options (already checked). */
export interface SendCall {
  readonly docHashId: string;
  readonly url: string;
  readonly body: string;
  readonly timeout: number | false;
  readonly maxRetries: number;
  readonly signal: AbortSignal | undefined;
  readonly retryWhenMaybeSent: boolean;
}

/**
 * Sends with rate limiting and retries; resolves only to a success answer, otherwise throws the typed error.
 *
 * Hand-written rather than ky's `retry` (issue 10 asked to try): ky's `timeout` covers fetch but not the body read,
 * ky joins the caller's signal to its own with `AbortSignal.any`, which kept every finished call in memory as long as
 * a long-lived caller signal lived, its HTTPError reads an error body without a cap, and whether an attempt may have
 * reached the service needs the connection phase of our own request. See docs/architecture.md.
 */
export async function sendWithRetries(sender: Sender, call: SendCall): Promise<AnswerInfo> {
  const { hooks, logger, limiter } = sender;
  const { docHashId, url, body, timeout, maxRetries, signal } = call;
  const request: RequestSummary = { method: 'POST', url };
  for (let attempt = 1; ; attempt++) {
    let release: ReleaseSlot | undefined;
    const queuedSince = performance.now();
    try {
      const granted = await limiter.acquire(sender.keyId, signal);
      release = typeof granted === 'function' ? granted : undefined;
    } catch (error) {
      throw signal?.aborted ? abortError(signal) : error;
    }
    const context = { ...request, attempt, docHashId, queuedMs: Math.round(performance.now() - queuedSince) };
    emit(hooks, logger, 'onRequest', context);
    const started = performance.now();
    let error: unknown;
    try {
      // The slot is released once the answer is read or the attempt failed: the limiter may space from it.
      let outcome: SlotOutcome | undefined;
      const answer = await sendAttempt({
        ky: sender.http,
        fetch: sender.fetch,
        url,
        body,
        timeout,
        signal,
        request,
        scrub: sender.scrub,
        onSent: release?.sent,
        onLeaving: release?.leaving,
      })
        .then((received) => {
          outcome = { rateLimited: received.status === 429 };
          return received;
        })
        .finally(() => release?.(outcome));
      const done = { ...context, status: answer.status, durationMs: Math.round(performance.now() - started) };
      if (sender.isSuccess(answer)) {
        emit(hooks, logger, 'onResponse', done);
        return answer;
      }
      const apiError = sender.toError(answer);
      error = apiError;
      emit(hooks, logger, 'onResponse', { ...done, code: apiError.code, serviceErrorCode: apiError.errorCode });
    } catch (thrown) {
      const durationMs = Math.round(performance.now() - started);
      if (!(thrown instanceof ServiceError)) {
        // The caller's AbortError: close the attempt for tracing hooks, then let it through.
        emit(hooks, logger, 'onResponse', { ...context, status: undefined, durationMs, code: 'ABORTED' });
        throw thrown;
      }
      error = thrown;
      emit(hooks, logger, 'onResponse', { ...context, status: undefined, durationMs, code: thrown.code });
    }
    const delayMs =
      attempt > maxRetries
        ? undefined
        : sender.retryPolicy({ error, attempt, retryWhenMaybeSent: call.retryWhenMaybeSent });
    if (delayMs === undefined) throw error;
    emit(hooks, logger, 'onRetry', { ...context, reason: (error as ServiceError).code, delayMs });
    await abortableDelay(delayMs, signal);
  }
}
