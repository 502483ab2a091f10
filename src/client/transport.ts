// The client's transport: the one place a call is sent. It owns what every call of a client shares (ky, fetch, the
// client's headers, the rate limiter, the key, hooks, logger, telemetry, the retry policy), starts once (the parts
// imported on the first call), and sends a `Call` (./call.ts): the retry loop in `send`, one attempt in `#attempt`,
// whose one result is reported once, to hooks, logger and telemetry together, in `#report`.
import { type AnswerInfo, isSuccessAnswer } from '../errors/answer.js';
import { ApiError, UnauthorizedError } from '../errors/api-error.js';
import { requestIdOf } from '../errors/request-id.js';
import { ServiceError } from '../errors/service-error.js';
import { AbortedAfterSendError, failedAfterEarlierSend, mayHaveSucceeded } from '../errors/transport-errors.js';
import { abortableDelay } from '../internal/abort.js';
import { callUserCallback } from '../internal/callback.js';
import { DEFAULT_MARGIN_MS, type QueueStatus } from '../throttle/queue-options.js';
import { queuePlace } from '../throttle/queue-place-lazy.js';
import type { RateLimiter, ReleaseSlot, SlotOutcome } from '../throttle/rate-limiter.js';
import { giveBack, waitForSlot } from './acquire.js';
import type { Call } from './call.js';
import type { Credential, Credentials } from './credentials.js';
import { type ClientHooks, emit, type Logger } from './events.js';
import { attemptHeaders, type HeaderRecord } from './headers.js';
import type { SlotWait } from './queue-call.js';
import { noteAttempts } from './results.js';
import type { RetryPolicy } from './retry.js';
import { type CallTelemetry, startCall } from './telemetry.js';
import type { TransportParts } from './transport-parts.js';

export type { TransportParts } from './transport-parts.js';

let parts: TransportParts | undefined;
let starting: Promise<TransportParts> | undefined;
/** Calls waiting for the start: a call made while others wait waits behind them, so calls keep the order they were made in. */
let waiting = 0;

/**
 * The transport's parts, loaded once per process: the first calls wait for them, in the order they were made; later
 * calls find them at once. A part that could not be imported (a chunk a browser could not fetch) is tried again by
 * the next call.
 */
export function startTransport(): Promise<TransportParts> | TransportParts {
  if (parts !== undefined && waiting === 0) return parts;
  starting ??= Promise.all([import('./transport-parts.js'), queuePlace.load()]).then(
    ([loaded]) => {
      parts = loaded.transportParts;
      return parts;
    },
    (error: unknown) => {
      starting = undefined;
      throw error;
    },
  );
  waiting++;
  return starting.finally(() => {
    waiting--;
  });
}

/** What a client gives its transport; made once per client. */
export interface TransportInit {
  /** Every request's headers (./headers.ts `clientHeaders`). */
  readonly headers: HeaderRecord;
  readonly fetch: typeof globalThis.fetch;
  /** Whether `fetch` is the runtime's own (no `fetch` option): an undici instrumentation then sees its requests. */
  readonly runtimeFetch: boolean;
  readonly limiter: RateLimiter;
  readonly credentials: Credentials;
  readonly hooks: ClientHooks;
  readonly logger: Logger | undefined;
  readonly retryPolicy: RetryPolicy;
}

/**
 * The one result of an attempt: the answer (the success answer) or the error, with what the loop and the report
 * need. `final`: the error ends the call whatever the policy says (the caller's abort, a failure before sending).
 */
interface AttemptResult {
  readonly attempt: number;
  readonly answer?: AnswerInfo | undefined;
  /** The attempt's error (typed, but a custom fetch may throw anything that is not). */
  readonly error?: unknown;
  readonly final: boolean;
  /** Whether this attempt's request may have reached the service. */
  readonly reached: boolean;
  readonly queuedMs: number;
  /** The key the attempt sent, when it got that far. */
  readonly credential: Credential | undefined;
}

/** What a call's success answer is made into, once, at its end (`send`'s `finish`). */
type Finish = (answer: AnswerInfo) => unknown;

/** `send`'s result when the method takes the answer as it is. */
const asAnswer: Finish = (answer) => answer;

/** An attempt's key and its granted slot: what the attempt needs, after its wait, to send. */
interface Granted {
  readonly credential: Credential;
  readonly release: ReleaseSlot | undefined;
  readonly queuedMs: number;
}

export class Transport {
  readonly #init: TransportInit;
  /** What each exchange is given (ky, the fetch, whether it is the runtime's), made on the first attempt. */
  #http:
    | { readonly ky: TransportParts['ky']; readonly fetch: typeof globalThis.fetch; readonly runtime: boolean }
    | undefined;

  constructor(init: TransportInit) {
    this.#init = init;
  }

  /** The queue of the client's key at its limiter (`ServiceClient.queueStatus`): the budget that decides. */
  async queueStatus(): Promise<QueueStatus> {
    const { credentials, limiter } = this.#init;
    return (await queuePlace.load()).queueStatusOf(limiter, (credentials.fixed ?? (await credentials.read())).budgets);
  }

  /**
   * Sends a call with rate limiting and retries; resolves only to the call's success answer, otherwise rejects with
   * the typed error. Once an attempt may have reached the service, every outcome of the call says so
   * (`mayHaveSucceeded`): each error after it is built knowing it.
   *
   * Hand-written rather than ky's `retry`: see docs/architecture.md.
   */
  send(call: Call, ready: TransportParts): Promise<AnswerInfo>;
  /** `send`, its success answer made into the method's result by `finish` (`createEwayBill`'s), in the same promise. */
  send<T>(call: Call, ready: TransportParts, finish: (answer: AnswerInfo) => T): Promise<T>;
  send(call: Call, ready: TransportParts, finish: Finish = asAnswer): Promise<unknown> {
    const starting = startCall(
      () => ({ method: call.method, route: call.route, url: call.url, docHashId: call.docHashId }),
      () => this.#init.credentials.label(),
    );
    if (starting) return starting.then((telemetry) => this.#run(call, ready, telemetry, undefined, finish));
    // The slot before the state (issue 29, item 8): the first attempt asks for its slot now, and the retry loop's
    // frame starts once it is granted, so a call queued for its slot holds the call and its wait's record only.
    return this.#queue(call, ready, 1, undefined, call.earlierSend, undefined, finish);
  }

  /** The retry loop of `send`, from the first attempt's slot (`first`, when it was asked for already). */
  async #run(
    call: Call,
    ready: TransportParts,
    telemetry: CallTelemetry | undefined,
    first: Granted | AttemptResult | undefined,
    finish: Finish,
  ): Promise<unknown> {
    const { credentials, retryPolicy } = this.#init;
    // Whether a request of this call may have reached the service (createEwayBillOnce's resend starts with it).
    let earlierSend = call.earlierSend;
    // The requests of the call that may have reached the service: answered, or failed after they may have left.
    let reached = 0;
    let lastStatus: number | undefined;
    let rotated: Credential | undefined;
    let rotationTried = false;
    let result: AttemptResult | undefined;
    let error: unknown;
    for (let attempt = 1; ; attempt++) {
      const queued =
        first ??
        (await (this.#queue(call, ready, attempt, rotated, earlierSend, telemetry, undefined) as Promise<
          Granted | AttemptResult
        >));
      first = undefined;
      result = 'final' in queued ? queued : await this.#attempt(call, ready, attempt, queued, earlierSend, telemetry);
      rotated = undefined;
      if (result.reached) reached++;
      if (result.answer) lastStatus = result.answer.status;
      else if (result.error instanceof ApiError) lastStatus = result.error.status;
      if (result.answer || result.final) break;
      const failed = result.error as ServiceError;
      if (mayHaveSucceeded(failed)) earlierSend = true;
      // A refused key may have been rotated since it was read: read it once more, and try once more if it changed.
      if (failed instanceof UnauthorizedError && credentials.rotates && !rotationTried) {
        rotationTried = true;
        let next: Credential;
        try {
          next = await credentials.read({ signal: call.signal, timeout: call.timeout, request: call.request });
        } catch (thrown) {
          error = earlierSend ? failedAfterEarlierSend(thrown, call.request) : thrown;
          break;
        }
        if (next.key !== result.credential?.key) {
          rotated = next;
          this.#retrying(call, telemetry, attempt, result.queuedMs, 'KEY_ROTATED', 0);
          continue;
        }
      }
      const delayMs =
        attempt > call.maxRetries
          ? undefined
          : retryPolicy({
              error: failed,
              attempt,
              retryWhenMaybeSent: call.retryWhenMaybeSent,
              idempotent: call.idempotent,
            });
      if (delayMs === undefined) break;
      // A retry whose wait alone ends past the call's queue deadline cannot start in time: say so now (after a
      // possible send, saying so, with that attempt's error as the cause).
      error = ready.queue.retryTooLate(call, delayMs, earlierSend, failed);
      if (error) break;
      this.#retrying(call, telemetry, attempt, result.queuedMs, failed.code, delayMs);
      try {
        await abortableDelay(delayMs, call.signal);
      } catch (thrown) {
        error = earlierSend ? failedAfterEarlierSend(thrown, call.request) : thrown;
        result = undefined;
        break;
      }
    }
    const resendCount = (result?.attempt ?? 1) - 1;
    const answer = error === undefined ? result?.answer : undefined;
    if (answer) {
      try {
        // Awaited only when there is one: an `await` of nothing is a turn of the event loop for every call.
        if (call.check) await call.check(answer);
      } catch (refused) {
        telemetry?.end({ status: answer.status, error: refused, resendCount });
        throw noteAttempts(refused, reached);
      }
      telemetry?.end({ status: answer.status, resendCount });
      return finish(reached > 1 ? { ...answer, attempts: reached } : answer);
    }
    error ??= result?.error;
    telemetry?.end({ status: lastStatus, error, resendCount });
    throw noteAttempts(error, reached);
  }

  /**
   * The wait of an attempt: its key, then its rate-limit slot. Resolves to the key and the grant, or to the attempt's
   * one result when it ended before its request was made (the limiter, the key, the caller's abort): the call then
   * ends unreported, as nothing was sent. With `finish` (the first attempt), resolves to what the retry loop makes of
   * that instead (the call's result). Not an async function: with a known key, the limiter is asked before this
   * returns, and the waiting call holds no suspended frame, only its wait's record (`SlotWait`, issue 29, item 8).
   * Never throws.
   */
  #queue(
    call: Call,
    ready: TransportParts,
    attempt: number,
    rotated: Credential | undefined,
    earlierSend: boolean,
    telemetry: CallTelemetry | undefined,
    finish: Finish | undefined,
  ): Promise<unknown> {
    const { credentials } = this.#init;
    // The key is read before the attempt queues: it is one of the budgets the attempt waits for. A fixed key is
    // known (from the client's construction where hashing is synchronous, else from its first derivation): no turn
    // of the event loop before the limiter. A key function's read ends at the call's abort or timeout.
    const known = rotated ?? credentials.fixed;
    if (known) return this.#slot(call, ready, attempt, known, earlierSend, telemetry, finish);
    return credentials
      .read({ signal: call.signal, timeout: call.timeout, request: call.request })
      .then<unknown, unknown>(
        (credential) => this.#slot(call, ready, attempt, credential, earlierSend, telemetry, finish),
        (error: unknown) => {
          const ended = this.#ended(attempt, error, call, earlierSend, ready);
          return finish ? this.#run(call, ready, telemetry, ended, finish) : ended;
        },
      );
  }

  /** The slot of an attempt whose key is known (see `#queue`): its record waits at the limiter. */
  #slot(
    call: Call,
    ready: TransportParts,
    attempt: number,
    credential: Credential,
    earlierSend: boolean,
    telemetry: CallTelemetry | undefined,
    finish: Finish | undefined,
  ): Promise<unknown> {
    const { limiter, logger, hooks } = this.#init;
    const since = Math.round(performance.now());
    const wait = new ready.queue.SlotWait(
      this,
      call,
      ready,
      credential,
      attempt,
      earlierSend,
      telemetry,
      finish,
      since,
    );
    const settled = new Promise((resolve) => {
      wait.resolve = resolve;
    });
    try {
      // The one place a call asks the limiter, with the call's priority, queue deadline and onQueued (./queue-call.ts).
      telemetry?.queuing(limiter, credential.budgets);
      const told = ready.queue.acquireOptionsOf(call, attempt, hooks, logger, emit);
      waitForSlot(limiter, credential.budgets, call.signal, logger, told, wait);
    } catch (error) {
      wait.failed(error);
    }
    return settled;
  }

  /**
   * The outcome of a wait at the limiter (`SlotWait`, its record: for it alone): the grant, or why there is none. A
   * grant that came past the queue deadline (its timer fired late on a starved event loop) is given back: the call did
   * not start within its maxQueueWait, and nothing is sent. Told twice (a partner's limiter cannot, the SDK's own does
   * not), the first outcome stands and a later grant goes back.
   */
  slotSettled(
    wait: SlotWait<TransportParts>,
    granted: boolean,
    release: ReleaseSlot | undefined,
    reason: unknown,
  ): void {
    const { resolve, call, ready, attempt, earlierSend } = wait;
    const late = granted && resolve ? ready.queue.grantedTooLate(call, earlierSend, DEFAULT_MARGIN_MS) : undefined;
    if (!resolve || late) giveBack(release, this.#init.logger);
    if (!resolve) return;
    wait.resolve = undefined;
    const outcome: Granted | AttemptResult =
      granted && !late
        ? { credential: wait.credential, release, queuedMs: Math.round(performance.now()) - wait.queuedSince }
        : this.#ended(attempt, late ?? ready.queue.notGranted(reason, call, earlierSend), call, earlierSend, ready);
    const { finish } = wait;
    resolve(finish ? this.#run(call, ready, wait.telemetry, outcome, finish) : outcome);
  }

  /** The one result of an attempt that ended before its request was made (see `#queue`). */
  #ended(attempt: number, error: unknown, call: Call, earlierSend: boolean, ready: TransportParts): AttemptResult {
    return {
      attempt,
      error: ready.queue.endedBeforeSend(error, call, earlierSend),
      final: true,
      reached: false,
      queuedMs: 0,
      credential: undefined,
    };
  }

  /**
   * One attempt, its slot granted (`#queue`): the journal's intent, the exchange, the answer mapped. Its one result is
   * reported once (`#report`).
   */
  async #attempt(
    call: Call,
    ready: TransportParts,
    attempt: number,
    { credential, release, queuedMs }: Granted,
    earlierSend: boolean,
    telemetry: CallTelemetry | undefined,
  ): Promise<AttemptResult> {
    const { logger, hooks } = this.#init;
    if (call.journal) {
      // The journal's intent (issue 31), recorded before the request can leave: after a crash from here on, the record
      // says the request may have been sent. If it cannot be recorded, nothing is sent.
      try {
        await call.journal.before(credential);
      } catch (error) {
        // Nothing was sent: the slot goes back unused.
        if (release)
          callUserCallback('rateLimiter release', release, [{ rateLimited: false, unused: true }], logger ?? console);
        return this.#ended(attempt, error, call, earlierSend, ready);
      }
    }
    // From its grant the request may leave at any moment (ky prepares it before fetch is called): the limiter must not
    // start the key's next request before `sent()`.
    release?.leaving?.();
    // The event is built only for someone who listens (a hook or the logger).
    if (hooks.onRequest || logger)
      emit(hooks, logger, 'onRequest', { ...call.request, attempt, docHashId: call.docHashId, queuedMs });
    const started = performance.now();
    const headers = attemptHeaders(this.#init.headers, call.headers, credential.authorization, call.body !== undefined);
    telemetry?.inject(headers, this.#init.runtimeFetch);
    this.#http ??= { ky: ready.ky, fetch: this.#init.fetch, runtime: this.#init.runtimeFetch };
    const http = this.#http;
    let outcome: SlotOutcome | undefined;
    let answer: AnswerInfo | undefined;
    let thrown: unknown;
    try {
      answer = await (telemetry
        ? telemetry.active(() => ready.exchange(http, call, headers, credential.redact, release, earlierSend))
        : ready.exchange(http, call, headers, credential.redact, release, earlierSend));
      outcome = { rateLimited: answer.status === 429 };
    } catch (error) {
      thrown = error;
    } finally {
      // The slot is released once the answer is read or the attempt failed: the limiter may space from it. A limiter
      // (a partner's own) that throws here is reported; it cannot change what the service answered.
      if (release) callUserCallback('rateLimiter release', release, [outcome], logger ?? console);
    }
    let result: AttemptResult;
    if (answer) {
      const error = isSuccessAnswer(answer, call.success) ? undefined : ready.mapping.answerError(answer, earlierSend);
      result = {
        attempt,
        answer: error ? undefined : answer,
        error,
        final: false,
        reached: true,
        queuedMs,
        credential,
      };
    } else {
      // The caller's abort ends the call; a transport failure goes to the policy.
      const final = !(thrown instanceof ServiceError) || thrown instanceof AbortedAfterSendError;
      result = { attempt, error: thrown, final, reached: mayHaveSucceeded(thrown), queuedMs, credential };
    }
    const recorded = this.#report(call, result, answer, Math.round(performance.now() - started), telemetry);
    if (recorded) await recorded;
    return result;
  }

  /**
   * The one report of an attempt that sent a request: to the hooks and the logger (`onResponse`), telemetry, and the
   * call's journal (its outcome; resolves once recorded, never rejects).
   */
  #report(
    call: Call,
    result: AttemptResult,
    answer: AnswerInfo | undefined,
    durationMs: number,
    telemetry: CallTelemetry | undefined,
  ): Promise<void> | undefined {
    const { attempt, queuedMs, error } = result;
    const status = answer?.status;
    const code = error === undefined ? undefined : error instanceof ServiceError ? error.code : 'ABORTED';
    const { hooks, logger } = this.#init;
    // The event is built only for someone who listens (a hook or the logger).
    if (hooks.onResponse || logger) {
      const serviceErrorCode = error instanceof ApiError ? error.errorCode : undefined;
      const event = { ...call.request, attempt, docHashId: call.docHashId, queuedMs, status, durationMs };
      const told = code === undefined ? event : answer ? { ...event, code, serviceErrorCode } : { ...event, code };
      emit(hooks, logger, 'onResponse', told);
    }
    if (telemetry) {
      // A gateway or service that echoes the key into the request id must not put it on an exported span.
      const id = answer ? requestIdOf(answer.headers) : undefined;
      const requestId = id === undefined ? undefined : result.credential?.redact.text(id);
      telemetry.attemptEnded({ attempt, queuedMs, durationMs, status, code, requestId });
    }
    return call.journal?.after(error ?? answer);
  }

  /** The retry, reported once: to the hooks and the logger (`onRetry`), and telemetry. */
  #retrying(
    call: Call,
    telemetry: CallTelemetry | undefined,
    attempt: number,
    queuedMs: number,
    reason: string,
    delayMs: number,
  ): void {
    telemetry?.retrying(attempt, reason, delayMs);
    const event = { ...call.request, attempt, docHashId: call.docHashId, queuedMs, reason, delayMs };
    emit(this.#init.hooks, this.#init.logger, 'onRetry', event);
  }
}
