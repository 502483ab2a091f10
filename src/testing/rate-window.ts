/** The answer of the mock's rate limit to one arrival. */
export type RateDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

/**
 * The service's rate limit as the mock applies it: per API key, an arrival is allowed when at least `intervalMs`
 * passed since the key's last allowed arrival. Refused arrivals do not move the window, so a client that waits
 * the `Retry-After` gets through. Arrivals are also kept per key, for assertions ({@link RateWindow.record}).
 */
export class RateWindow {
  readonly #intervalMs: number | undefined;
  readonly #lastAllowed = new Map<string, number>();
  readonly #arrivals = new Map<string, number[]>();

  /** @param intervalMs the least time between two allowed arrivals of one key; `undefined` turns the limit off. */
  constructor(intervalMs: number | undefined) {
    this.#intervalMs = intervalMs;
  }

  /** Keeps an arrival of `keyId` at `at` in the key's history (whatever is answered to it). */
  record(keyId: string, at: number): void {
    const list = this.#arrivals.get(keyId) ?? [];
    list.push(at);
    this.#arrivals.set(keyId, list);
  }

  /** Decides whether an arrival of `keyId` at `at` may go on; an allowed one starts a new window. */
  check(keyId: string, at: number): RateDecision {
    if (this.#intervalMs === undefined) return { allowed: true };
    const last = this.#lastAllowed.get(keyId);
    if (last !== undefined && at - last < this.#intervalMs) {
      const waitMs = last + this.#intervalMs - at;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    }
    this.#lastAllowed.set(keyId, at);
    return { allowed: true };
  }

  /** Arrival times of `keyId`, oldest first. */
  arrivals(keyId: string): number[] {
    return [...(this.#arrivals.get(keyId) ?? [])];
  }

  /** Forgets everything. */
  clear(): void {
    this.#lastAllowed.clear();
    this.#arrivals.clear();
  }
}
