// How one attempt gets its rate-limit slots: one per budget its key belongs to (the key's own, and its
// `rateLimitKey`'s when named), from the SDK's own limiters at once, from a partner's one after the other.
import { callUserCallback } from '../internal/callback.js';
import {
  ACQUIRE_ALL,
  budgetOrder,
  HONORS_ABORT,
  joinSlots,
  type MultiBudgetLimiter,
  type RateLimiter,
  type ReleaseSlot,
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
 * One slot that holds every budget in `keyIds`, or a rejection as soon as `signal` aborts. The SDK's own limiters
 * take them together; a partner's limiter is asked for each in {@link budgetOrder} (the same order in every process,
 * so two calls never wait for each other in a circle), each grant but the last marked `leaving()` while the next is
 * waited for. When a later wait fails, the grants already made are given back unused.
 */
export async function acquireBudgets(
  limiter: RateLimiter,
  keyIds: readonly string[],
  signal: AbortSignal | undefined,
  logger: Logger | undefined,
): Promise<ReleaseSlot | undefined> {
  const many = keyIds.length > 1;
  const all = many ? (limiter as Partial<MultiBudgetLimiter>)[ACQUIRE_ALL] : undefined;
  if (!many || all) {
    const acquiring = all ? all.call(limiter, keyIds, signal) : limiter.acquire(keyIds[0] as string, signal);
    const granted = await untilAbort(limiter, acquiring, signal, logger);
    return typeof granted === 'function' ? granted : undefined;
  }
  const order = budgetOrder(keyIds);
  const slots: (ReleaseSlot | undefined)[] = [];
  try {
    for (const [index, keyId] of order.entries()) {
      const granted = await untilAbort(limiter, limiter.acquire(keyId, signal), signal, logger);
      const slot = typeof granted === 'function' ? granted : undefined;
      slots.push(slot);
      if (index < order.length - 1) slot?.leaving?.();
    }
  } catch (error) {
    for (const slot of slots) giveBack(slot, logger);
    throw error;
  }
  return joinSlots(slots);
}
