/** Options of {@link createProcessRateLimiter}. */
export interface ProcessRateLimiterOptions {
  /**
   * The least time between the starts of two requests of one key, in milliseconds.
   * @default 1000 (the service's limit: 1 request per second per key)
   */
  interval?: number;
  /**
   * Extra milliseconds added to p-throttle's interval: p-throttle's strict mode was measured starting calls
   * up to about 11 ms early in bursts. The bound itself is also enforced by a monotonic-clock check.
   * @default 25
   */
  margin?: number;
  /**
   * Space each request of a key from the previous request's answer too, not only from its start. The service counts a
   * request when it arrives, some time between the client sending it and the answer, so spacing starts alone lets a
   * late arrival (a cold connection, a busy server) come less than `interval` before the next one, which the service
   * may refuse with a 429. With this on, the next request starts `interval` after the previous answer (or, for a
   * slow answer, `interval` after `answerWaitLimit` past the previous start). `false` spaces starts only, for the most
   * throughput, and relies on the client's automatic retry of 429s.
   * @default true
   */
  waitForAnswer?: boolean;
  /**
   * With `waitForAnswer`: how long after its start a request is assumed to have reached the service when its answer
   * takes longer, in milliseconds. It bounds what a slow answer costs the next request (the period of a key is at
   * most `interval + answerWaitLimit`). `Infinity` waits for every answer.
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
