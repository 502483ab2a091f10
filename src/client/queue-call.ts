// What a call tells the rate limiter about its wait (issue 30), the error of a wait that cannot end in time, and the
// error of an attempt that ended before it sent: one of the transport's started parts (./transport.ts
// `startTransport`), off the client's first chunk.
import type { AnswerInfo } from '../errors/answer.js';
import { RateLimiterConfigurationError, RateLimiterUnavailableError } from '../errors/rate-limiter-unavailable.js';
import { ServiceError } from '../errors/service-error.js';
import {
  AbortedAfterSendError,
  failedAfterEarlierSend,
  mayHaveSucceeded,
  type QueueTimeoutError,
} from '../errors/transport-errors.js';
import { abortError } from '../internal/abort.js';
import type { AcquireOptions } from '../throttle/queue-options.js';
import { queuedOnce, queueTimeout } from '../throttle/queue-place.js';
import type { ReleaseSlot } from '../throttle/rate-limiter.js';
import type { AttemptWaiter } from './acquire.js';
import type { Call } from './call.js';
import type { Credential } from './credentials.js';
// Types alone from events.ts (the transport passes `emit`): a module this chunk shared with the client's first chunk
// would be a chunk of its own, fetched before the client runs.
import type { ClientHooks, emit as Emit, Logger } from './events.js';
import type { CallTelemetry } from './telemetry.js';

/**
 * The error of a retry whose wait alone (`delayMs`) ends past the call's queue deadline: it cannot start in time, so
 * the call ends now. After a possible send (`earlierSend`), it says so, with that attempt's error (`failed`) as cause.
 * `undefined` when the retry may wait.
 */
export function retryTooLate(
  call: Call,
  delayMs: number,
  earlierSend: boolean,
  failed: unknown,
): QueueTimeoutError | undefined {
  const startAt = Date.now() + delayMs;
  if (call.queueDeadline === undefined || startAt <= call.queueDeadline) return undefined;
  return queueTimeout(call, startAt, earlierSend ? { cause: failed } : undefined);
}

/**
 * A limiter's `QueueTimeoutError` on the wait of a retry after an earlier request may have reached the service
 * (`earlierSend`): made anew saying so (the limiter's as cause). Any other error as it is.
 */
export function timedOutAfterSend(error: unknown, call: Call, earlierSend: boolean): unknown {
  if (!earlierSend || (error as { code?: unknown } | undefined)?.code !== 'QUEUE_TIMEOUT') return error;
  return queueTimeout(call, (error as QueueTimeoutError).estimatedStartAt, { cause: error });
}

/**
 * What an attempt tells the limiter: the call's priority and queue deadline, and `onQueued` when someone listens (a
 * hook or the logger: the limiter then works out the call's place in line), called once per attempt however many
 * budgets or processes the wait goes through. `undefined` when there is nothing to tell: a partner's limiter is then
 * asked as before, `acquire(keyId, signal)`.
 */
export function acquireOptionsOf(
  call: Call,
  attempt: number,
  hooks: ClientHooks,
  logger: Logger | undefined,
  emit: typeof Emit,
): AcquireOptions | undefined {
  const listening = hooks.onQueued !== undefined || logger !== undefined;
  if (call.priority === 'normal' && call.queueDeadline === undefined && !listening) return undefined;
  return queuedOnce({
    priority: call.priority,
    deadline: call.queueDeadline,
    maxQueueWait: call.maxQueueWait,
    onQueued: listening
      ? (info) => emit(hooks, logger, 'onQueued', { ...call.request, attempt, docHashId: call.docHashId, ...info })
      : undefined,
  });
}

/**
 * The error of an attempt whose slot was granted after the call's queue deadline, later than `tolerance` ms (the
 * default limiter's margin, `DEFAULT_MARGIN_MS` of queue-options.ts, passed by the transport: importing it here would
 * make that module of the client's first chunk a chunk of its own): a starved event loop fired the limiter's timer
 * late, the call did not start within its `maxQueueWait`, so it does not start now. After a possible send
 * (`earlierSend`), it says so. `undefined` when the grant came in time, or the call has no deadline.
 */
export function grantedTooLate(call: Call, earlierSend: boolean, tolerance: number): QueueTimeoutError | undefined {
  if (call.queueDeadline === undefined || Date.now() <= call.queueDeadline + tolerance) return undefined;
  return queueTimeout(call, undefined, earlierSend ? { cause: undefined } : undefined);
}

/**
 * The error of an attempt whose limiter did not grant its slot: the SDK's own limiters reject with typed errors (a
 * queue deadline that passed on a retry's wait made anew, saying an earlier request may have reached the service); a
 * partner's may throw anything, made a `RateLimiterUnavailableError`. Nothing was sent either way.
 */
export function notGranted(error: unknown, call: Call, earlierSend: boolean): unknown {
  if (call.signal?.aborted || error instanceof ServiceError) return timedOutAfterSend(error, call, earlierSend);
  const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const message = `The rate limiter could not grant a slot (its acquire() failed: ${why.slice(0, 300)}); nothing was sent`;
  return new RateLimiterUnavailableError(message, { cause: error, earlierSend });
}

/**
 * The error of an attempt that ended before its request was made (the key, the limiter, the caller's abort), built
 * once, knowing whether an earlier request of the call may have reached the service (`earlierSend`).
 */
export function endedBeforeSend(error: unknown, call: Call, earlierSend: boolean): Error {
  const { signal, request } = call;
  if (signal?.aborted)
    return earlierSend ? new AbortedAfterSendError({ request, cause: signal.reason }) : abortError(signal);
  if (!earlierSend || mayHaveSucceeded(error)) return error as Error;
  // A limiter's own error, made without knowing of the earlier request: made anew, of its class, saying so.
  if (error instanceof RateLimiterConfigurationError) {
    return new RateLimiterConfigurationError(error.message, { cause: error.cause ?? error, earlierSend });
  }
  if (error instanceof RateLimiterUnavailableError) {
    return new RateLimiterUnavailableError(error.message, { cause: error.cause ?? error, earlierSend });
  }
  return failedAfterEarlierSend(error, request);
}

/**
 * What a {@link SlotWait} tells its outcome to: the transport (./transport.ts `slotSettled`). `Parts`: the
 * transport's parts (an interface and a type parameter here: transport.ts imports this module).
 */
export interface SlotOwner<Parts> {
  slotSettled(wait: SlotWait<Parts>, granted: boolean, release: ReleaseSlot | undefined, reason: unknown): void;
}

/**
 * An attempt waiting for its slot: what it needs, after its wait, to be sent, in one record, which the SDK's own
 * limiter keeps in the key's line (../client/acquire.ts `waitForSlot`), with the resolve function of the promise its
 * caller holds (issue 29, item 8). `finish`: the call's first attempt, whose outcome starts the retry loop, and what the
 * loop makes its success answer into; `undefined`: the loop awaits the outcome. The limiter's `granted` or `failed` is taken up in a later microtask (`slotSettled`), as a
 * promise's would be: never inside the limiter's own turn.
 */
export class SlotWait<Parts> implements AttemptWaiter {
  /** Settles the promise of the transport's `#slot`; `undefined` once settled. */
  resolve: ((outcome: unknown) => void) | undefined;

  constructor(
    readonly transport: SlotOwner<Parts>,
    readonly call: Call,
    readonly ready: Parts,
    readonly credential: Credential,
    readonly attempt: number,
    readonly earlierSend: boolean,
    readonly telemetry: CallTelemetry | undefined,
    readonly finish: ((answer: AnswerInfo) => unknown) | undefined,
    /** `performance.now()`, whole milliseconds (a small integer: no number object of its own). */
    readonly queuedSince: number,
  ) {}

  granted(release: ReleaseSlot | undefined): void {
    queueMicrotask(() => this.transport.slotSettled(this, true, release, undefined));
  }

  failed(reason: unknown): void {
    queueMicrotask(() => this.transport.slotSettled(this, false, undefined, reason));
  }
}
