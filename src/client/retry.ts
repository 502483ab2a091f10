// Where a request is retried: the retry loop (`sendWithRetries`: the key, the rate-limit slot, hooks, telemetry, one
// attempt, the policy's delay) and the default policy. The attempt itself is in transport.ts; the answer becomes a
// result or an error in ../errors/map-response.ts.
import type { KyInstance } from 'ky';
import { type AnswerInfo, isSuccessAnswer, type SuccessRule } from '../errors/answer.js';
import {
  ApiError,
  RateLimitError,
  RedirectError,
  type RequestSummary,
  ServerError,
  UnauthorizedError,
} from '../errors/api-error.js';
import { RateLimiterUnavailableError } from '../errors/rate-limiter-unavailable.js';
import { requestIdOf } from '../errors/request-id.js';
import { ServiceError } from '../errors/service-error.js';
import {
  AbortedAfterSendError,
  ConnectionError,
  mayHaveSucceeded,
  TimeoutError,
  withEarlierSend,
} from '../errors/transport-errors.js';
import { abortableDelay, abortError } from '../internal/abort.js';
import { callUserCallback } from '../internal/callback.js';
import { lazyPart } from '../internal/lazy.js';
import type { Priority } from '../throttle/priority-queue.js';
import type { AcquireOptions, QueuedInfo } from '../throttle/queue-options.js';
import { queuePlace } from '../throttle/queue-place-lazy.js';
import type { RateLimiter, ReleaseSlot, SlotOutcome } from '../throttle/rate-limiter.js';
import { acquireBudgets } from './acquire.js';
import type { Credential, Credentials } from './credentials.js';
import { type ClientHooks, emit, type Logger } from './events.js';
import { type CallTelemetry, startCall } from './telemetry.js';
import { type HttpMethod, sendAttempt } from './transport.js';

/**
 * The mapping of error answers to typed errors, imported when the first error answer arrives, before it is mapped: it
 * brings `PortalError` and the portal's descriptions (their size: docs/benchmarks.md), which a bundler that splits
 * code then keeps out of the client's first chunk. Every error is still built whole, description included.
 * A program that imports `PortalError` itself has them from the start.
 */
const mapping = /* @__PURE__ */ lazyPart(() => import('../errors/map-response.js'));

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

/** What the retry loop needs from its client; made once per client. */
export interface Sender {
  /** The ky instance every client shares. */
  readonly http: KyInstance;
  /** The client's own headers (`User-Agent`, `Accept`, the `headers` option), lower-case names, sent with every attempt. */
  readonly headers: Readonly<Record<string, string>>;
  readonly fetch: typeof globalThis.fetch;
  /** Whether `fetch` is the runtime's own (no `fetch` option): an undici instrumentation then sees its requests. */
  readonly runtimeFetch: boolean;
  readonly limiter: RateLimiter;
  /** The key of each attempt. */
  readonly credentials: Credentials;
  readonly hooks: ClientHooks;
  readonly logger: Logger | undefined;
  readonly retryPolicy: RetryPolicy;
}

/** One call: the one context object that goes from the client's method to the last attempt. */
export interface Call {
  readonly method: HttpMethod;
  /** The absolute URL, query included. */
  readonly url: string;
  /** The URL template, for telemetry: `'/v2/ewaybill/{doc_hash_id}'`, `request`'s `route`, or `undefined`. */
  readonly route: string | undefined;
  /** The JSON body, or `undefined` for none. */
  readonly body: string | undefined;
  /** The call's own headers (already checked: none of the three the SDK owns). */
  readonly headers: Readonly<Record<string, string>> | undefined;
  /** The document the call is for, when there is one. */
  readonly docHashId: string | undefined;
  readonly timeout: number | false;
  readonly maxRetries: number;
  /** The most bytes of a 2xx body read (`maxResponseBytes`). */
  readonly maxResponseBytes: number;
  readonly signal: AbortSignal | undefined;
  /** The call's priority for its rate-limit slots. */
  readonly priority: Priority;
  /** The call's `maxQueueWait`, and the time (epoch ms) every wait for a slot of the call must end by. */
  readonly maxQueueWait: number | undefined;
  readonly queueDeadline: number | undefined;
  readonly retryWhenMaybeSent: boolean;
  /** `false`: never resent after a possible send, whatever the method (`request`'s `idempotent: false`). */
  readonly idempotent?: false | undefined;
  /** What counts as the success answer. */
  readonly success: SuccessRule;
  /**
   * Checks the success answer before the call ends (`request`'s schema): what it throws is the call's error, as it is
   * (the service answered 2xx), and the call's span ends with it.
   */
  readonly check?: ((answer: AnswerInfo) => Promise<void>) | undefined;
}

const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'PUT', 'DELETE']);

/**
 * The headers of one attempt: the client's, then the call's, then the key (which nothing can override), the body's
 * type, and the trace context (unless the call set its own `traceparent`). A plain object with lower-case names, so a
 * header spelt in another case replaces the one before it, as in a `Headers`; ky merges plain objects without building
 * `Headers` of its own twice more for each request.
 */
function attemptHeaders(
  sender: Sender,
  call: Call,
  credential: Credential,
  telemetry: CallTelemetry | undefined,
): Record<string, string> {
  // No prototype: a header named `__proto__` is a header like any other.
  const headers: Record<string, string> = Object.assign(Object.create(null), sender.headers);
  if (call.headers) for (const name in call.headers) headers[name.toLowerCase()] = call.headers[name] as string;
  headers.authorization = credential.authorization;
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  telemetry?.inject(headers, sender.runtimeFetch);
  return headers;
}

/**
 * Sends with rate limiting and retries; resolves only to the call's success answer, otherwise throws the typed error.
 * Once an attempt may have reached the service, every outcome of the call says so (`mayHaveSucceeded`), whatever fails
 * afterwards.
 *
 * Hand-written rather than ky's `retry`: see docs/architecture.md.
 */
export async function sendWithRetries(sender: Sender, call: Call): Promise<AnswerInfo> {
  const request: RequestSummary = { method: call.method, url: call.url };
  const idempotent = call.idempotent !== false && IDEMPOTENT_METHODS.has(call.method);
  let maybeSent = false;
  // The requests of the call that may have reached the service: answered, or failed after they may have left.
  let reached = 0;
  let telemetry: CallTelemetry | undefined;
  let lastStatus: number | undefined;
  let attempts = 0;
  let answerRefused = false;
  try {
    const starting = startCall(
      { method: call.method, route: call.route, url: call.url, docHashId: call.docHashId },
      () => sender.credentials.label(),
    );
    if (starting) telemetry = await starting;
    // A key read anew after a refusal (a rotation): the next attempt sends it without reading once more.
    let rotated: Credential | undefined;
    let rotationTried = false;
    const at = { queuedMs: 0, credential: undefined as Credential | undefined };
    for (let attempt = 1; ; attempt++) {
      attempts = attempt;
      const outcome = await sendOnce(sender, call, { request, attempt, telemetry, rotated, at });
      rotated = undefined;
      if (!(outcome instanceof Error) || outcome instanceof ApiError || mayHaveSucceeded(outcome)) reached++;
      if (!(outcome instanceof Error)) {
        lastStatus = outcome.status;
        if (call.check) {
          try {
            await call.check(outcome);
          } catch (error) {
            answerRefused = true;
            telemetry?.end({ status: outcome.status, error, resendCount: attempt - 1 });
            throw error;
          }
        }
        telemetry?.end({ status: outcome.status, resendCount: attempt - 1 });
        return reached > 1 ? { ...outcome, attempts: reached } : outcome;
      }
      const error = outcome;
      if (mayHaveSucceeded(error)) maybeSent = true;
      if (error instanceof ApiError) lastStatus = error.status;
      // A refused key may have been rotated since it was read: read it once more, and try once more if it changed.
      if (error instanceof UnauthorizedError && sender.credentials.rotates && !rotationTried) {
        rotationTried = true;
        const next = await sender.credentials.read({ signal: call.signal, timeout: call.timeout, request });
        if (next.key !== at.credential?.key) {
          rotated = next;
          telemetry?.retrying(attempt, 'KEY_ROTATED', 0);
          emit(sender.hooks, sender.logger, 'onRetry', retryEvent(call, attempt, at.queuedMs, 'KEY_ROTATED', 0));
          continue;
        }
      }
      const delayMs =
        attempt > call.maxRetries
          ? undefined
          : sender.retryPolicy({ error, attempt, retryWhenMaybeSent: call.retryWhenMaybeSent, idempotent });
      if (delayMs === undefined) throw error;
      // A retry whose wait alone ends past the call's queue deadline cannot start in time: say so now.
      if (call.queueDeadline !== undefined && Date.now() + delayMs > call.queueDeadline) {
        const { queueTimeout } = queuePlace.value ?? (await queuePlace.load());
        throw queueTimeout({ maxQueueWait: call.maxQueueWait }, Date.now() + delayMs);
      }
      const reason = (error as ServiceError).code;
      telemetry?.retrying(attempt, reason, delayMs);
      emit(sender.hooks, sender.logger, 'onRetry', retryEvent(call, attempt, at.queuedMs, reason, delayMs));
      await abortableDelay(delayMs, call.signal);
    }
  } catch (thrown) {
    if (answerRefused) throw thrown;
    const error = maybeSent ? withEarlierSend(thrown, request) : thrown;
    telemetry?.end({ status: lastStatus, error, resendCount: Math.max(0, attempts - 1) });
    throw error;
  }
}

/**
 * The request id an answer carried, for telemetry: a gateway or service that echoes the key into it (a request id made
 * from the Authorization header, say) must not put the key on a span exported off the process.
 */
function redactedRequestId(headers: Headers, credential: Credential): string | undefined {
  const id = requestIdOf(headers);
  return id === undefined ? undefined : credential.redact.text(id);
}

/** What the limiter is told about the call's wait; `undefined` for a call with nothing to tell (a partner's limiter is then asked as before). */
function queueOptions(call: Call, onQueued: ((info: QueuedInfo) => void) | undefined): AcquireOptions | undefined {
  if (call.priority === 'normal' && call.queueDeadline === undefined && onQueued === undefined) return undefined;
  return { priority: call.priority, deadline: call.queueDeadline, maxQueueWait: call.maxQueueWait, onQueued };
}

function retryEvent(call: Call, attempt: number, queuedMs: number, reason: string, delayMs: number) {
  return { method: call.method, url: call.url, attempt, docHashId: call.docHashId, queuedMs, reason, delayMs };
}

interface AttemptState {
  readonly request: RequestSummary;
  readonly attempt: number;
  readonly telemetry: CallTelemetry | undefined;
  /** The key to send, when it was read already (after a refusal); otherwise it is read before the attempt queues. */
  readonly rotated: Credential | undefined;
  /** Where the attempt writes its slot wait (for the retry event) and the key it sent (to tell a rotation). */
  readonly at: { queuedMs: number; credential: Credential | undefined };
}

/** One attempt: its rate-limit slot, hooks and telemetry. Resolves to the success answer or the attempt's error. */
async function sendOnce(sender: Sender, call: Call, state: AttemptState): Promise<AnswerInfo | Error> {
  const { request, attempt, telemetry } = state;
  const { hooks, logger, limiter } = sender;
  const { signal } = call;
  let release: ReleaseSlot | undefined;
  // The key is read before the attempt queues: it is one of the budgets the attempt waits for. A fixed key is known
  // (from the client's construction where hashing is synchronous, else from its first derivation): no turn of the
  // event loop before the limiter. A key function's read ends at the call's abort or timeout; nothing is sent then.
  const credential =
    state.rotated ??
    sender.credentials.fixed ??
    (await sender.credentials.read({ signal, timeout: call.timeout, request }));
  const queuedSince = performance.now();
  try {
    // Told only when someone listens: the limiter then works out the call's place in line.
    const onQueued =
      hooks.onQueued || logger
        ? (info: QueuedInfo) =>
            emit(hooks, logger, 'onQueued', {
              method: call.method,
              url: call.url,
              attempt,
              docHashId: call.docHashId,
              ...info,
            })
        : undefined;
    telemetry?.queuing(limiter, credential.budgets);
    release = await acquireBudgets(limiter, credential.budgets, signal, logger, queueOptions(call, onQueued));
  } catch (error) {
    if (signal?.aborted) throw abortError(signal);
    // The SDK's own limiters reject with typed errors; a partner's may throw anything: nothing was sent either way.
    if (error instanceof ServiceError) throw error;
    const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new RateLimiterUnavailableError(
      `The rate limiter could not grant a slot (its acquire() failed: ${why.slice(0, 300)}); nothing was sent`,
      { cause: error },
    );
  }
  const queuedMs = Math.round(performance.now() - queuedSince);
  state.at.queuedMs = queuedMs;
  // From its grant the request may leave at any moment (ky prepares it before fetch is called): the limiter must not
  // start the key's next request before `sent()`.
  release?.leaving?.();
  state.at.credential = credential;
  const context = { ...request, attempt, docHashId: call.docHashId, queuedMs };
  emit(hooks, logger, 'onRequest', context);
  const started = performance.now();
  let outcome: SlotOutcome | undefined;
  const send = () =>
    sendAttempt({
      ky: sender.http,
      fetch: sender.fetch,
      method: call.method,
      url: call.url,
      body: call.body,
      headers: attemptHeaders(sender, call, credential, telemetry),
      timeout: call.timeout,
      maxResponseBytes: call.maxResponseBytes,
      signal,
      request,
      redact: credential.redact,
      onSent: release?.sent,
      onLeaving: release?.leaving,
    });
  try {
    let answer: AnswerInfo;
    try {
      answer = await (telemetry ? telemetry.active(send) : send());
      outcome = { rateLimited: answer.status === 429 };
    } finally {
      // The slot is released once the answer is read or the attempt failed: the limiter may space from it. A limiter
      // (a partner's own) that throws here is reported; it cannot change what the service answered.
      if (release) callUserCallback('rateLimiter release', release, [outcome], logger ?? console);
    }
    const durationMs = Math.round(performance.now() - started);
    const done = { ...context, status: answer.status, durationMs };
    if (isSuccessAnswer(answer, call.success)) {
      emit(hooks, logger, 'onResponse', done);
      telemetry?.attemptEnded({
        attempt,
        queuedMs,
        durationMs,
        status: answer.status,
        requestId: redactedRequestId(answer.headers, credential),
      });
      return answer;
    }
    const { answerError } = mapping.value ?? (await mapping.load());
    const error = answerError(answer);
    emit(hooks, logger, 'onResponse', { ...done, code: error.code, serviceErrorCode: error.errorCode });
    telemetry?.attemptEnded({
      attempt,
      queuedMs,
      durationMs,
      status: answer.status,
      code: error.code,
      requestId: redactedRequestId(answer.headers, credential),
    });
    return error;
  } catch (thrown) {
    const durationMs = Math.round(performance.now() - started);
    const code = thrown instanceof ServiceError ? thrown.code : 'ABORTED';
    emit(hooks, logger, 'onResponse', { ...context, status: undefined, durationMs, code });
    telemetry?.attemptEnded({ attempt, queuedMs, durationMs, code });
    // The caller's abort ends the call; a transport failure goes to the policy.
    if (!(thrown instanceof ServiceError) || thrown instanceof AbortedAfterSendError) throw thrown;
    return thrown;
  }
}
