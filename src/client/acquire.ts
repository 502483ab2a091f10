// How one attempt gets its rate-limit slots: one per budget its key belongs to (the key's own, and its
// `rateLimitKey`'s when named).
import { callUserCallback } from '../internal/callback.js';
import { lazyPart } from '../internal/lazy.js';
import type { AcquireOptions } from '../throttle/queue-options.js';
import { queuePlace } from '../throttle/queue-place-lazy.js';
import {
  ACQUIRE_ALL,
  ACQUIRE_HELD,
  type AcquireHeld,
  ENQUEUE,
  type Enqueue,
  HONORS_ABORT,
  type MultiBudgetLimiter,
  type RateLimiter,
  type ReleaseSlot,
  type SlotWaiter,
} from '../throttle/rate-limiter.js';
import type { Logger } from './events.js';

type Granted = Awaited<ReturnType<RateLimiter['acquire']>>;

/**
 * The limiter's grant, or a rejection as soon as `signal` aborts, even when the limiter (a partner's own) ignores the
 * signal: the caller's abort always ends the wait. A grant that comes after the abort is given back at once, unused.
 */
function untilAbort(
  limiter: RateLimiter,
  acquiring: Promise<Granted>,
  signal: AbortSignal | undefined,
  logger: Logger | undefined,
): Promise<Granted> {
  if (signal === undefined || (limiter as { [HONORS_ABORT]?: boolean })[HONORS_ABORT] === true) return acquiring;
  return new Promise((resolve, reject) => {
    let abandoned = false;
    const onAbort = () => {
      abandoned = true;
      reject(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(acquiring).then(
      (granted) => {
        signal.removeEventListener('abort', onAbort);
        if (!abandoned) return resolve(granted);
        giveBack(typeof granted === 'function' ? granted : undefined, logger);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Releases a slot that was never used, telling the limiter so (it may give the slot back). */
export function giveBack(slot: ReleaseSlot | undefined, logger: Logger | undefined): void {
  if (slot) callUserCallback('rateLimiter release', slot, [{ unused: true }], logger ?? console);
}

/**
 * Several budgets (a client that names a `rateLimitKey`), imported on first use: most clients never name one, and
 * keep it out of their first chunk.
 */
const several = /* @__PURE__ */ lazyPart(() => import('../throttle/budgets.js'));

/**
 * One slot that holds every budget in `keyIds` (the key's, and its `rateLimitKey`'s), or a rejection as soon as
 * `signal` aborts. The Redis limiter takes them together; the in-process one holds each grant but the last until the
 * request leaves; a partner's limiter is asked for each in turn, each grant but the last marked `leaving()` while the
 * next is awaited. Every order is the same sorted one, so two calls never wait for each other in a circle; when a
 * later wait fails, the grants already made are given back unused.
 *
 * Resolves to what the limiter granted, as it granted it (the release function, or anything else for a limiter that
 * has nothing to release: the caller keeps a function only). Not an async function, and no closure of its own on the
 * usual path (one budget, no deadline): a call queued for its slot holds the limiter's promise and nothing more of
 * this module (issue 29, item 8). Never throws: a limiter that throws rejects.
 */
export function acquireBudgets(
  limiter: RateLimiter,
  keyIds: readonly string[],
  signal: AbortSignal | undefined,
  logger: Logger | undefined,
  // Their onQueued called once per attempt, however many budgets it waits for (../client/queue-call.ts).
  options?: AcquireOptions,
): Promise<unknown> {
  try {
    if (options?.deadline === undefined) return acquireAll(limiter, keyIds, signal, logger, options);
    // A limiter that does not keep deadlines (a partner's) is given a signal that aborts at the call's (queue-place.ts).
    const within = (place: NonNullable<typeof queuePlace.value>) =>
      place.withinDeadline(limiter, signal, options, (ending) => acquireAll(limiter, keyIds, ending, logger, options));
    return queuePlace.value ? within(queuePlace.value) : queuePlace.load().then(within);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** What waits for an attempt's slot: the transport's record of the attempt (a grant may be `undefined`: nothing to release). */
export interface AttemptWaiter extends SlotWaiter {
  granted(release: ReleaseSlot | undefined): void;
}

/**
 * Asks `limiter` for the slot of an attempt in `keyIds` (see {@link acquireBudgets}) and tells `waiter` the outcome,
 * once. The SDK's own in-process limiter, given as it is, for one budget, puts `waiter` itself in the key's line
 * (`ENQUEUE`): a call queued for its slot is then that one record and the line's entry (issue 29, item 8). Any other limiter, or several
 * budgets, go through the promise of {@link acquireBudgets}, whose outcome is handed to `waiter`. Never throws.
 */
export function waitForSlot(
  limiter: RateLimiter,
  keyIds: readonly string[],
  signal: AbortSignal | undefined,
  logger: Logger | undefined,
  options: AcquireOptions | undefined,
  waiter: AttemptWaiter,
): void {
  try {
    const own = limiter as { [ENQUEUE]?: Enqueue };
    if (keyIds.length === 1 && own[ENQUEUE]?.(keyIds[0] as string, waiter, signal, options)) return;
  } catch (error) {
    waiter.failed(error);
    return;
  }
  acquireBudgets(limiter, keyIds, signal, logger, options).then(
    (granted) => waiter.granted(typeof granted === 'function' ? (granted as ReleaseSlot) : undefined),
    (error: unknown) => waiter.failed(error),
  );
}

function acquireAll(
  limiter: RateLimiter,
  keyIds: readonly string[],
  signal: AbortSignal | undefined,
  logger: Logger | undefined,
  options: AcquireOptions | undefined,
): Promise<unknown> {
  const all = (limiter as Partial<MultiBudgetLimiter>)[ACQUIRE_ALL];
  if (keyIds.length === 1 || all) {
    let acquiring: Promise<Granted>;
    try {
      // Without options, a partner's limiter is called as it always was: `acquire(keyId, signal)`.
      acquiring = Promise.resolve(
        all
          ? all.call(limiter, keyIds, signal, options)
          : options
            ? limiter.acquire(keyIds[0] as string, signal, options)
            : limiter.acquire(keyIds[0] as string, signal),
      );
    } catch (error) {
      return Promise.reject(error);
    }
    return untilAbort(limiter, acquiring, signal, logger);
  }
  const inOrder = ({ acquireSeveral }: typeof import('../throttle/budgets.js')) =>
    acquireSeveral(
      limiter,
      (limiter as { [ACQUIRE_HELD]?: AcquireHeld })[ACQUIRE_HELD],
      keyIds,
      signal,
      (acquiring) => untilAbort(limiter, acquiring, signal, logger),
      (slot) => giveBack(slot, logger),
      options,
    );
  return several.value ? inOrder(several.value) : several.load().then(inOrder);
}
