// Several rate-limit budgets for one request (a key's own, and its `rateLimitKey`'s): only calls of a client that
// names a `rateLimitKey` come here, so the client imports this on first use, off its first chunk.
// Type-only imports: a module the client's first chunk also holds would become a chunk of its own (one more file).
import type { AcquireOptions } from './queue-options.js';
import type { AcquireHeld, RateLimiter, ReleaseSlot, SlotOutcome } from './rate-limiter.js';

type Granted = Awaited<ReturnType<RateLimiter['acquire']>>;

/** The budgets of one request in the one order every process takes them in: sorted, without repeats. */
export function budgetOrder(keyIds: readonly string[]): string[] {
  return [...new Set(keyIds)].sort();
}

/** One slot of several: released, sent and leaving together (a release is passed its outcome). */
export function joinSlots(slots: readonly (ReleaseSlot | undefined)[]): ReleaseSlot | undefined {
  const held = slots.filter((slot): slot is ReleaseSlot => slot !== undefined);
  if (held.length <= 1) return held[0];
  // Every slot is released even when one (a partner's) throws; the first error is thrown after.
  const each = (use: (slot: ReleaseSlot) => void) => {
    let failure: { error: unknown } | undefined;
    for (const slot of held) {
      try {
        use(slot);
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  };
  const release = (outcome?: SlotOutcome) => each((slot) => slot(outcome));
  return Object.assign(release, {
    sent: () => each((slot) => slot.sent?.()),
    leaving: () => each((slot) => slot.leaving?.()),
  });
}

/**
 * A slot of every budget in `keyIds`, taken one after the other in {@link budgetOrder} (the same order for every
 * caller, in every process, so two calls never wait for each other in a circle). `acquireOne` is asked to hold each
 * grant but the last until the request leaves; when a later wait fails (an abort), the grants already made are given
 * back unused through `giveBack`.
 */
export async function acquireInOrder(
  keyIds: readonly string[],
  acquireOne: (keyId: string, hold: boolean) => Promise<ReleaseSlot | undefined>,
  giveBack: (slot: ReleaseSlot) => void,
): Promise<ReleaseSlot | undefined> {
  const order = budgetOrder(keyIds);
  const slots: (ReleaseSlot | undefined)[] = [];
  try {
    for (const [index, keyId] of order.entries()) slots.push(await acquireOne(keyId, index < order.length - 1));
  } catch (error) {
    for (const slot of slots) if (slot) giveBack(slot);
    throw error;
  }
  return joinSlots(slots);
}

/**
 * A slot of every budget in `keyIds` from `limiter` (see {@link acquireInOrder}). The in-process limiter (`held`, its
 * held grant) holds each grant but the last until the request leaves; a partner's limiter is asked for each in turn
 * through `wait` (which ends at the caller's abort), each grant but the last marked `leaving()` while the next is
 * awaited.
 */
export function acquireSeveral(
  limiter: RateLimiter,
  held: AcquireHeld | undefined,
  keyIds: readonly string[],
  signal: AbortSignal | undefined,
  wait: (acquiring: Promise<Granted>) => Promise<Granted>,
  giveBack: (slot: ReleaseSlot) => void,
  options?: AcquireOptions,
): Promise<ReleaseSlot | undefined> {
  return acquireInOrder(
    keyIds,
    async (keyId, hold) => {
      if (held) return held.call(limiter, keyId, signal, hold, options);
      const granted = await wait(options ? limiter.acquire(keyId, signal, options) : limiter.acquire(keyId, signal));
      const slot = typeof granted === 'function' ? granted : undefined;
      if (hold) slot?.leaving?.();
      return slot;
    },
    giveBack,
  );
}
