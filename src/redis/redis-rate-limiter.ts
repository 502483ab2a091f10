import { createHash, randomUUID } from 'node:crypto';
import { RateLimiterConfigurationError, RateLimiterUnavailableError } from '../errors/rate-limiter-unavailable.js';
import { callUserCallback } from '../internal/callback.js';
import { pause } from '../throttle/pause.js';
import { createProcessRateLimiter } from '../throttle/process-rate-limiter.js';
import type { RateLimiter, ReleaseSlot } from '../throttle/rate-limiter.js';
import { scriptRunner, withDeadline } from './redis-client.js';
import { evictionWarning } from './redis-policy.js';
import { type RedisRateLimiterOptions, resolveRedisLimiterOptions } from './redis-rate-limiter-options.js';
import { SLOT_SCRIPT, SLOT_SCRIPT_SHA } from './slot-script.js';

type Op = 'acquire' | 'start' | 'sent' | 'release' | 'cancel';

/** What a grant needs to tell, at `sent()`, whether the request left later than `margin` after its granted time. */
interface Grant {
  /** `performance.now()` just before the granting call was made. */
  asked: number;
  /** How long after the script ran the request was allowed to start, in milliseconds. */
  wait: number;
}

const NEVER = new AbortController().signal;

/** How many times in a row a late grant is confirmed when each confirmation's answer itself comes late. */
const MAX_CONFIRMATIONS = 3;

/** An in-process slot: the release may take the request's outcome, and may carry `sent` and `leaving`. */
type LocalSlot = ((outcome?: unknown) => void) & { sent?: () => void; leaving?: () => void };

function describe(error: unknown): string {
  return (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 300);
}

/** Resolves with `promise`, or rejects with the signal's reason as soon as it aborts; the listener is removed either way. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  // +1: Node timers may fire up to a millisecond before performance.now() says the delay has passed.
  if (ms > 0) await pause(Math.ceil(ms) + 1, signal ?? NEVER);
  signal?.throwIfAborted();
}

/**
 * What a Redis error says is wrong with the setup rather than the connection (waiting will not fix it), in words that
 * name the fix; `undefined` for an outage.
 */
export function configurationProblem(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (/NOPERM/i.test(message)) {
    return `the Redis user may not run the rate-limit script (${message.slice(0, 200)}): grant it EVALSHA and EVAL (for example ACL SETUSER <user> +evalsha +eval) and the limiter's keys (~<prefix>*)`;
  }
  if (/WRONGTYPE/i.test(message)) {
    return `a key of another type sits at the rate limiter's prefix (${message.slice(0, 200)}): give the limiter a prefix of its own`;
  }
  if (/WRONGPASS/i.test(message)) {
    return `Redis refused the client's user name or password (${message.slice(0, 200)}): give the Redis client the password (and user) the server expects`;
  }
  if (/NOAUTH/i.test(message)) {
    return `Redis requires a password the client did not give (${message.slice(0, 200)}): give the Redis client the server's password (and user)`;
  }
  if (/NOSCRIPT/i.test(message)) {
    return `Redis cannot load the rate-limit script (${message.slice(0, 200)}): scripting may be disabled on this server`;
  }
  return undefined;
}

/** One slot of two limiters: released, sent and leaving together. */
function bothSlots(first: ReleaseSlot | undefined, second: ReleaseSlot | undefined): ReleaseSlot | undefined {
  if (!first || !second) return first ?? second;
  const a = first as LocalSlot;
  const b = second as LocalSlot;
  const release = (outcome?: unknown) => {
    a(outcome);
    b(outcome);
  };
  return Object.assign(release, {
    sent: () => {
      a.sent?.();
      b.sent?.();
    },
    leaving: () => {
      a.leaving?.();
      b.leaving?.();
    },
  });
}

function parseReply(reply: unknown): [granted: boolean, waitMs: number] {
  const [granted, micros] = Array.isArray(reply) ? reply.map(Number) : [];
  if ((granted !== 0 && granted !== 1) || micros === undefined || !Number.isFinite(micros)) {
    throw new Error(`The rate-limit script answered ${JSON.stringify(reply)?.slice(0, 100)}, not [0|1, µs]`);
  }
  return [granted === 1, micros / 1000];
}

/**
 * A {@link RateLimiter} shared by every process that uses the same Redis: no two requests of one API key start less
 * than `interval` apart across all of them, and (by default) each starts `interval` after the previous answer.
 *
 * Each call first takes its turn in this process (the in-process limiter, with the same options), then asks Redis:
 * one Lua script decides the slot atomically on Redis's clock and answers either a start time (the caller sleeps
 * until then: one round trip when the key is free) or when to ask again (no polling in between). Every Redis call
 * has its own deadline; when Redis fails, `onUnavailable` decides. Redis holds only SHA-256 hashes under `prefix`,
 * one key per API key, and every key expires.
 *
 * @throws {TypeError} when `redis` is not an ioredis or node-redis client, or an option is out of range.
 * @example
 * import Redis from 'ioredis';
 * import { ServiceClient } from 'invoicing-service-sdk';
 * import { createRedisRateLimiter } from 'invoicing-service-sdk/redis';
 *
 * const rateLimiter = createRedisRateLimiter({ redis: new Redis(process.env.REDIS_URL) });
 * const client = new ServiceClient({ apiKey, rateLimiter });
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const resolved = resolveRedisLimiterOptions(options);
  const { interval, margin, waitForAnswer, answerWaitLimit, timeout, logger } = resolved;
  const run = scriptRunner(options.redis, SLOT_SCRIPT, SLOT_SCRIPT_SHA, 'createRedisRateLimiter: redis');
  const local = createProcessRateLimiter({ interval, margin, waitForAnswer, answerWaitLimit });
  // While Redis is away: `processes` processes share a key's budget, so each spaces it `interval × processes`.
  const wide =
    resolved.processes > 1
      ? createProcessRateLimiter({ interval: interval * resolved.processes, margin, waitForAnswer, answerWaitLimit })
      : undefined;
  const fallback = async (keyId: string, signal: AbortSignal | undefined, localRelease: ReleaseSlot | undefined) => {
    if (!wide) return localRelease;
    try {
      const granted = await wide.acquire(keyId, signal);
      return bothSlots(localRelease, typeof granted === 'function' ? granted : undefined);
    } catch (error) {
      localRelease?.();
      throw error;
    }
  };
  const checkPolicy = evictionWarning(options.redis, 'the Redis rate limiter', (message) =>
    callUserCallback('logger.warn', (m: string) => logger.warn(m), [message], undefined),
  );
  const grace = Math.max(2000, 4 * timeout);
  const keep = 2 * (interval + margin + answerWaitLimit) + 10_000;
  const fixedArgs = [String(interval), String(margin), waitForAnswer ? '1' : '0', String(answerWaitLimit)];
  let downUntil = Number.NEGATIVE_INFINITY;
  let degraded = false;

  const call = (key: string, op: Op, ticket: string) =>
    withDeadline(
      () => run(key, [op, ticket, ...fixedArgs, String(grace), String(keep)]),
      timeout,
      `the rate-limit script (${op})`,
    );
  // Fire and forget: a failure only leaves an entry that expires by itself.
  const notify = (key: string, op: Op, ticket: string) => void call(key, op, ticket).catch(() => {});

  function markDown(error: unknown): void {
    downUntil = performance.now() + resolved.recheckAfter;
    if (degraded) return;
    degraded = true;
    // A replica answers READONLY: still an outage (a failover may turn it into the primary), but the fix is named.
    const replica = /READONLY/i.test(describe(error))
      ? '; the Redis client points at a read-only replica: connect it to the primary'
      : '';
    const message = `invoicing-service-sdk: the Redis rate limiter is unavailable (${describe(error)})${replica}; each process limits only its own requests until Redis answers again, so the service may answer 429`;
    const details = { code: RateLimiterUnavailableError.code };
    callUserCallback('logger.warn', (m: string, d: typeof details) => logger.warn(m, d), [message, details], undefined);
  }

  function markUp(): void {
    if (!degraded) return;
    degraded = false;
    const message =
      'invoicing-service-sdk: the Redis rate limiter answers again; the limit is shared across processes again';
    callUserCallback('logger.debug', logger.debug && ((m: string) => logger.debug?.(m)), [message], undefined);
  }

  async function reserve(key: string, ticket: string, signal: AbortSignal | undefined): Promise<Grant> {
    for (;;) {
      const asked = performance.now();
      const [granted, wait] = parseReply(await raceAbort(call(key, 'acquire', ticket), signal));
      markUp();
      await sleep(wait, signal);
      if (!granted) continue;
      if (performance.now() - asked - wait <= margin) return { asked, wait };
      // Handed over late (a busy or descheduled process): Redis may have counted the slot as arrived, or granted the
      // next one after it. Move its start to now before sending, or take a new turn if it can no longer be used.
      // The confirmation is held to the same rule: one whose answer came more than `margin` after it was asked (it
      // waited in the socket of a busy process) is confirmed again, so the start Redis recorded is never older than
      // `margin` when the request goes; another process may have been granted the next start after it meanwhile.
      for (let confirmations = 0; ; confirmations++) {
        const confirming = performance.now();
        const [usable] = parseReply(await raceAbort(call(key, 'start', ticket), signal));
        if (!usable) break;
        // After a few slow confirmations in a row, `sent()` reports the real start instead (a busy process).
        if (performance.now() - confirming <= margin || confirmations === MAX_CONFIRMATIONS - 1) {
          return { asked: confirming, wait: 0 };
        }
      }
    }
  }

  function slot(key: string, ticket: string, grant: Grant, localRelease: ReleaseSlot | undefined): ReleaseSlot {
    // The in-process slot, as the client's newer slots are: release(outcome), sent() (possibly twice), leaving().
    const local = localRelease as LocalSlot | undefined;
    let released = false;
    let reportedAt = Number.NEGATIVE_INFINITY;
    const release = (outcome?: unknown) => {
      if (released) return;
      released = true;
      local?.(outcome);
      // The answer (or failure) is what the next request of the key waits for.
      if (waitForAnswer) notify(key, 'release', ticket);
    };
    const sent = () => {
      if (released) return;
      local?.sent?.();
      // Each call moves the start later (fetch called, then the body written). Redis recorded the granted time: a
      // start more than `margin` after it is reported, so Redis moves the key's start to its own clock.
      const now = performance.now();
      if (now - grant.asked - grant.wait > margin && now - reportedAt > margin) {
        reportedAt = now;
        notify(key, 'sent', ticket);
      }
    };
    const leaving = () => {
      if (!released) local?.leaving?.();
    };
    return Object.assign(release, { sent, leaving });
  }

  return {
    async acquire(keyId, signal) {
      signal?.throwIfAborted();
      if (typeof keyId !== 'string')
        throw new TypeError(`RateLimiter.acquire: keyId must be a string; got ${typeof keyId}`);
      checkPolicy();
      const key = resolved.prefix + createHash('sha256').update(keyId).digest('hex');
      const granted = await local.acquire(keyId, signal);
      const localRelease = typeof granted === 'function' ? granted : undefined;
      if (resolved.onUnavailable === 'local' && performance.now() < downUntil) {
        return fallback(keyId, signal, localRelease);
      }
      const ticket = randomUUID();
      try {
        return slot(key, ticket, await reserve(key, ticket, signal), localRelease);
      } catch (error) {
        // Whatever it held is given back. A call abandoned at its deadline may still run later: the cancel, queued
        // behind it on the same connection, undoes it.
        notify(key, 'cancel', ticket);
        if (signal?.aborted) {
          localRelease?.();
          throw signal.reason;
        }
        // A setup problem is not an outage: falling back would send unshared, for good.
        const problem = configurationProblem(error);
        if (problem) {
          localRelease?.();
          throw new RateLimiterConfigurationError(
            `The Redis rate limiter cannot work: ${problem}; the request was not sent`,
            {
              cause: error,
            },
          );
        }
        if (resolved.onUnavailable === 'fail') {
          localRelease?.();
          throw new RateLimiterUnavailableError(
            `The Redis rate limiter is unavailable (${describe(error)}); the request was not sent`,
            { cause: error },
          );
        }
        markDown(error);
        return fallback(keyId, signal, localRelease);
      }
    },
  };
}
