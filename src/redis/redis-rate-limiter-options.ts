import type { RedisLike } from './redis-client.js';

/** A console-like logger: `warn` is required, `debug` is used when present. `console`, pino and winston fit. */
export interface RedisLimiterLogger {
  warn(message: string, details?: Record<string, unknown>): void;
  debug?(message: string, details?: Record<string, unknown>): void;
}

/** Options of `createRedisRateLimiter`. */
export interface RedisRateLimiterOptions {
  /**
   * Your Redis client, connected (or connecting) by you: ioredis 5 or 6 (`new Redis(url)`, or a `Cluster`), or
   * node-redis 4 or 5 (`createClient({ url })` after `await client.connect()`, or `createCluster`). It is recognised by
   * its shape; the limiter never connects, quits or reconfigures it.
   */
  redis: RedisLike;
  /**
   * What happens when Redis fails or does not answer within `timeout`:
   * - `'local'`: the call goes on under the in-process limiter (one limit per process rather than across processes,
   *   so the service may answer 429s, which the client retries), and `logger.warn` says so once per outage. Redis is
   *   tried again `recheckAfter` later, and used again as soon as it answers.
   * - `'fail'`: the call rejects with `RateLimiterUnavailableError` (`mayHaveSucceeded: false`); nothing is sent.
   * @default 'local'
   */
  onUnavailable?: 'local' | 'fail';
  /**
   * The start of every Redis key the limiter writes. Each key is this prefix and a SHA-256 hash (of the client's key
   * id, itself a SHA-256 of the API key), so Redis never holds an API key. Every key expires.
   * @default 'invoicing-service-sdk:rate:'
   */
  prefix?: string;
  /**
   * The least time between the starts of two requests of one key, across every process, in milliseconds.
   * @default 1000 (the service's limit: 1 request per second per key)
   */
  interval?: number;
  /**
   * Extra milliseconds between two grants of a key. A request handed to fetch within `margin` of its granted time
   * costs no further Redis call; one handed over later reports its real start to Redis (a second call), so a busy
   * event loop cannot bring two sends closer than `interval`.
   * @default 25
   */
  margin?: number;
  /**
   * The in-process limiter's `waitForAnswer`, across processes. `false` (its default) spaces the moments requests
   * left: one Redis call per request when the key is free, two when it waits for its turn. `true` also starts each
   * request `interval` after the previous answer (which the client reports to Redis when it has it), or, for a slow
   * answer or a holder that died, `interval` after `answerWaitLimit` past the previous start: no 429 even when
   * arrivals jitter, at the cost of a round trip per request of the key and one more Redis call.
   * @default false (as `createProcessRateLimiter`)
   */
  waitForAnswer?: boolean;
  /**
   * How long after its start a request is assumed to have reached the service when the limiter cannot tell (with
   * `waitForAnswer`: its answer takes longer, or its process died), in milliseconds. Finite: across processes a holder
   * may die at any time.
   * @default 1000
   */
  answerWaitLimit?: number;
  /**
   * The deadline of each Redis call, in milliseconds. Past it, the call counts as failed (see `onUnavailable`).
   * @default 1000
   */
  timeout?: number;
  /**
   * With `onUnavailable: 'local'`: how long after a failed Redis call the limiter stays on the in-process limiter
   * before it tries Redis again, in milliseconds, so a Redis that hangs does not add `timeout` to every request.
   * @default 5000
   */
  recheckAfter?: number;
  /** Where the fall-back to the in-process limiter is reported. @default console */
  logger?: RedisLimiterLogger;
  /**
   * How many processes share one key's budget. While Redis is away (`onUnavailable: 'local'`), each process spaces the
   * key's requests `interval × processes` apart, so together they still stay within the limit: slower, never a 429.
   * With the default 1 each process keeps `interval`, and `processes` of them together may send that many times the
   * limit while Redis is away.
   * @default 1
   */
  processes?: number;
}

/** The options, checked and with their defaults. */
export interface ResolvedRedisLimiterOptions {
  readonly onUnavailable: 'local' | 'fail';
  readonly prefix: string;
  readonly interval: number;
  readonly margin: number;
  readonly waitForAnswer: boolean;
  readonly answerWaitLimit: number;
  readonly timeout: number;
  readonly recheckAfter: number;
  readonly logger: RedisLimiterLogger;
  readonly processes: number;
}

function numberOption(
  options: RedisRateLimiterOptions,
  name: keyof RedisRateLimiterOptions,
  fallback: number,
  min: number,
) {
  const value = options[name] ?? fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new TypeError(
      `createRedisRateLimiter: ${name} must be a finite number >= ${min} (milliseconds); got ${String(value)}`,
    );
  }
  return value;
}

function processesOption(value: unknown): number {
  if (value === undefined) return 1;
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > 10_000) {
    throw new TypeError(`createRedisRateLimiter: processes must be an integer from 1 to 10000; got ${String(value)}`);
  }
  return value as number;
}

/** Checks every option but `redis` once, at construction. @throws {TypeError} naming the option and what it takes. */
export function resolveRedisLimiterOptions(options: RedisRateLimiterOptions): ResolvedRedisLimiterOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createRedisRateLimiter: pass an options object, for example { redis }');
  }
  const onUnavailable = options.onUnavailable ?? 'local';
  if (onUnavailable !== 'local' && onUnavailable !== 'fail') {
    throw new TypeError(
      `createRedisRateLimiter: onUnavailable must be 'local' or 'fail'; got ${String(onUnavailable)}`,
    );
  }
  const prefix = options.prefix ?? 'invoicing-service-sdk:rate:';
  if (typeof prefix !== 'string') {
    throw new TypeError(`createRedisRateLimiter: prefix must be a string; got ${typeof prefix}`);
  }
  const waitForAnswer = options.waitForAnswer ?? false;
  if (typeof waitForAnswer !== 'boolean') {
    throw new TypeError(`createRedisRateLimiter: waitForAnswer must be true or false; got ${String(waitForAnswer)}`);
  }
  const logger = options.logger ?? console;
  if (typeof logger !== 'object' || logger === null || typeof logger.warn !== 'function') {
    throw new TypeError('createRedisRateLimiter: logger must have a warn() method, as console does');
  }
  return Object.freeze({
    onUnavailable,
    prefix,
    interval: numberOption(options, 'interval', 1000, 1),
    margin: numberOption(options, 'margin', 25, 0),
    waitForAnswer,
    answerWaitLimit: numberOption(options, 'answerWaitLimit', 1000, 0),
    timeout: numberOption(options, 'timeout', 1000, 1),
    recheckAfter: numberOption(options, 'recheckAfter', 5000, 0),
    logger,
    processes: processesOption(options.processes),
  });
}
