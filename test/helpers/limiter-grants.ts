// What the in-process limiter decided, recorded around it: each grant (the slot's time, on the test's fake clock) and
// each `sent()` the client reported for it. Tests assert on these decisions instead of on when the machine got round
// to a fetch.
import type { RateLimiter, ReleaseSlot } from 'invoicing-service-sdk';
import { expect } from 'vitest';

/** One slot the limiter granted: its key, when (`performance.now()`), and the `sent()` reports of its request. */
export interface Grant {
  readonly keyId: string;
  readonly at: number;
  readonly sent: number[];
}

/** Wraps `inner` so that every grant is recorded in `grants`; the wrapper behaves as `inner` does. */
export function recordingLimiter(inner: RateLimiter): { limiter: RateLimiter; grants: Grant[] } {
  const grants: Grant[] = [];
  const limiter: RateLimiter = {
    async acquire(keyId, signal) {
      const release = await inner.acquire(keyId, signal);
      const grant: Grant = { keyId, at: performance.now(), sent: [] };
      grants.push(grant);
      if (typeof release !== 'function') return release;
      const slot = release as ReleaseSlot;
      const sent = slot.sent;
      return Object.assign((outcome?: Parameters<ReleaseSlot>[0]) => slot(outcome), {
        sent:
          sent &&
          (() => {
            grant.sent.push(performance.now());
            sent();
          }),
        leaving: slot.leaving,
      });
    },
  };
  // The in-process limiter's own marks (it honours abort signals) carry over.
  for (const symbol of Object.getOwnPropertySymbols(inner)) {
    Object.defineProperty(limiter, symbol, { value: (inner as unknown as Record<symbol, unknown>)[symbol] });
  }
  return { limiter, grants };
}

/**
 * The limiter's decisions for one key, on a fake clock (exact whatever the machine's load): every request got exactly
 * one grant (`sends`, the fetch calls in order, match the grants one to one: none lost, none doubled); each grant is at
 * least `interval` after the previous request left (its grant, or its last `sent()` if later) and at most `slack` ms
 * after that (spaced, not starved); and no request left before its grant.
 */
export function expectGrants(
  grants: readonly Grant[],
  sends: readonly number[],
  interval: number,
  slack: number,
): void {
  expect(sends).toHaveLength(grants.length);
  for (let i = 0; i < grants.length; i++) {
    const grant = grants[i] as Grant;
    expect(sends[i]).toBeGreaterThanOrEqual(grant.at);
    if (i === 0) continue;
    const previous = grants[i - 1] as Grant;
    const left = Math.max(previous.at, ...previous.sent);
    expect(grant.at - left).toBeGreaterThanOrEqual(interval);
    expect(grant.at - left).toBeLessThanOrEqual(interval + slack);
  }
}
