/** Options of {@link createProcessRateLimiter}. */
export interface ProcessRateLimiterOptions {
  /**
   * The least time between the starts of two requests of one key, in milliseconds.
   * @default 1000 (the service's limit: 1 request per second per key)
   */
  interval?: number;
  /**
   * Extra milliseconds between two requests of a key, on top of `interval`, measured from the moment the previous one
   * left: arrivals at the service jitter by more than the client's timers do, and p-throttle's strict mode starts
   * calls early in bursts (docs/benchmarks.md says by how much). Enforced by a monotonic-clock check.
   * @default 25
   */
  margin?: number;
  /**
   * Space each request of a key from the previous request's answer too, not only from the moment it left.
   * By default the next request starts `interval` (plus `margin`, plus what 429s taught) after the previous one was
   * written to the socket (on Node's built-in fetch; elsewhere, after it was handed to fetch), and never while the
   * previous one is still being written: the service counts a request when it arrives, which is right after it was
   * written, whatever the answer time. That reaches the limit even when the portal answers slowly. `true` restores the
   * conservative policy of 0.1: the next request starts `interval` after the previous answer (or `answerWaitLimit`
   * after its start, for a slow one), which costs up to half the throughput when answers take a second.
   * @default false
   */
  waitForAnswer?: boolean;
  /**
   * How long after its grant a request is assumed to have reached the service when the client cannot tell: a request
   * whose write was never reported, or (with `waitForAnswer`) one whose answer takes longer. It bounds what a stuck
   * request costs the next one (the period of a key is at most `interval + answerWaitLimit`). `Infinity` waits.
   * @default 1000
   */
  answerWaitLimit?: number;
}

/** `value` when it is a number in range, for option `name`. @throws {TypeError} naming the option otherwise. */
export function checkOption(name: string, value: number, min: number, allowInfinity = false): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < min || (!allowInfinity && !Number.isFinite(value))) {
    throw new TypeError(`createProcessRateLimiter: ${name} must be a number >= ${min}; got ${String(value)}`);
  }
  return value;
}
