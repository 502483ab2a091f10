// What a call tells the rate limiter about its wait (issue 30), and the error of a wait that cannot end in time:
// one of the transport's started parts (./transport.ts `startTransport`), off the client's first chunk.
import type { QueueTimeoutError } from '../errors/transport-errors.js';
import type { AcquireOptions } from '../throttle/queue-options.js';
import { queuedOnce, queueTimeout } from '../throttle/queue-place.js';
import type { Call } from './call.js';
// Types alone from events.ts (the transport passes `emit`): a module this chunk shared with the client's first chunk
// would be a chunk of its own, fetched before the client runs.
import type { ClientHooks, emit as Emit, Logger } from './events.js';

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
