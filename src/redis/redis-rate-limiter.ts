import { createHash, randomUUID } from 'node:crypto';
import { RateLimiterConfigurationError, RateLimiterUnavailableError } from '../errors/rate-limiter-unavailable.js';
import { QueueTimeoutError } from '../errors/transport-errors.js';
import { callUserCallback } from '../internal/callback.js';
import { acquireInOrder, budgetOrder, joinSlots } from '../throttle/budgets.js';
import { pause } from '../throttle/pause.js';
import { rankOf } from '../throttle/priority-queue.js';
import {
  createProcessRateLimiter,
  type LocalLimiter,
  type ProcessRateLimiter,
} from '../throttle/process-rate-limiter.js';
import {
  type AcquireOptions,
  QUEUE_STATUS,
  type QueueStatus,
  type QueueStatusLimiter,
  WAITING_COUNTS,
} from '../throttle/queue-options.js';
import { estimatesFrom, queuedOnce, queueTimeout, untilDeadline } from '../throttle/queue-place.js';
import {
  ACQUIRE_ALL,
  ACQUIRE_HELD,
  type AcquireHeld,
  type MultiBudgetLimiter,
  type RateLimiter,
  type ReleaseSlot,
  type SlotOutcome,
} from '../throttle/rate-limiter.js';
import { scriptRunner, withDeadline } from './redis-client.js';
import { evictionWarning } from './redis-policy.js';
import { type RedisRateLimiterOptions, resolveRedisLimiterOptions } from './redis-rate-limiter-options.js';
import { SLOT_SCRIPT, SLOT_SCRIPT_SHA } from './slot-script.js';

type Op = 'acquire' | 'start' | 'sent' | 'release' | 'cancel' | 'status';

/** What a grant needs to tell, at `sent()`, whether the request left later than `margin` after its granted time. */
interface Grant {
  /** `performance.now()` just before the granting call was made. */
  asked: number;
  /** How long after the script ran the request was allowed to start, in milliseconds. */
  wait: number;
}

const NEVER = new AbortController().signal;

/** One budget's Redis key while its grant is being taken: the ticket names this request in the script's state. */
interface Held {
  readonly keyId: string;
  readonly key: string;
  readonly ticket: string;
  grant: Grant | undefined;
  /** The script took it out of the line and granted it nothing (answer `2`): there is nothing to cancel. */
  left?: boolean;
}

/** How many calls of `counts` (per rank, most urgent first) are of rank `rank` or more urgent. */
const upTo = (counts: readonly number[], rank: number) => counts.slice(0, rank + 1).reduce((sum, n) => sum + n, 0);

/** How many times in a row a late grant is confirmed when each confirmation's answer itself comes late. */
const MAX_CONFIRMATIONS = 3;

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

type Local = ProcessRateLimiter & LocalLimiter;

/** The in-process stage's slot of every budget in `keyIds` (see {@link acquireInOrder}). */
function localSlots(
  acquire: AcquireHeld,
  keyIds: readonly string[],
  signal: AbortSignal | undefined,
  options?: AcquireOptions,
): Promise<ReleaseSlot | undefined> {
  return acquireInOrder(
    keyIds,
    (keyId, hold) => acquire(keyId, signal, hold, options),
    (slot) => slot({ unused: true }),
  );
}

/** The script's answer: granted (1), wait and ask again (0), or too late for the caller's deadline (2). */
interface Reply {
  readonly verdict: 0 | 1 | 2;
  readonly waitMs: number;
  /** With a `0`: the caller's expected start (ms from now) and how many waiters go before it. */
  readonly expectedMs: number | undefined;
  readonly place: number | undefined;
}

function parseReply(reply: unknown): Reply {
  const [verdict, micros, expected, place] = Array.isArray(reply) ? reply.map(Number) : [];
  if ((verdict !== 0 && verdict !== 1 && verdict !== 2) || micros === undefined || !Number.isFinite(micros)) {
    throw new Error(`The rate-limit script answered ${JSON.stringify(reply)?.slice(0, 100)}, not [0|1|2, µs]`);
  }
  return {
    verdict,
    waitMs: micros / 1000,
    expectedMs: expected === undefined ? undefined : expected / 1000,
    place,
  };
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
  // The in-process stage: the SDK's own limiter, with its held grant (see src/throttle/budgets.ts).
  const local = createProcessRateLimiter({ interval, margin, waitForAnswer, answerWaitLimit }) as Local;
  // While Redis is away: `processes` processes share a key's budget, so each spaces it `interval × processes`.
  const wide =
    resolved.processes > 1
      ? (createProcessRateLimiter({
          interval: interval * resolved.processes,
          margin,
          waitForAnswer,
          answerWaitLimit,
        }) as Local)
      : undefined;
  // The call's priority and deadline hold there too: a call that cannot start on the widened spacing within its
  // maxQueueWait rejects with a QueueTimeoutError, as it would at Redis.
  const fallback = async (
    keyIds: readonly string[],
    signal: AbortSignal | undefined,
    localRelease: ReleaseSlot | undefined,
    options: AcquireOptions | undefined,
  ) => {
    if (!wide) return localRelease;
    try {
      return joinSlots([localRelease, await localSlots(wide[ACQUIRE_HELD], keyIds, signal, options)]);
    } catch (error) {
      localRelease?.({ unused: true });
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

  // Names this process's waiting counts in the script's state (see src/redis/slot-script.ts).
  const processId = `p-${randomUUID()}`;
  const call = (key: string, op: Op, ticket: string, more: readonly string[] = []) =>
    withDeadline(
      () => run(key, [op, ticket, ...fixedArgs, String(grace), String(keep), ...more]),
      timeout,
      `the rate-limit script (${op})`,
    );
  /** An ask's priority, how long the caller may still wait, and this process's waiting counts for the key. */
  const askArgs = (keyId: string, options: AcquireOptions | undefined): string[] => {
    const deadline = options?.deadline;
    const counts = local[WAITING_COUNTS](keyId);
    return [
      String(rankOf(options?.priority ?? 'normal')),
      deadline === undefined ? '-1' : String(Math.max(0, Math.floor(deadline - Date.now()))),
      processId,
      String(counts.high),
      String(counts.normal),
      String(counts.low),
    ];
  };
  // This process's calls waiting at Redis (their in-process turn taken, their grant not yet), per budget and rank.
  const waitingAtRedis = new Map<string, [number, number, number]>();
  /** This process's calls waiting for a budget, per rank: in its in-process line, and at Redis. */
  const ownCalls = (keyId: string) => {
    const { high, normal, low } = local[WAITING_COUNTS](keyId);
    return { waiting: [high, normal, low], atRedis: waitingAtRedis.get(keyId) ?? [0, 0, 0] };
  };
  function atRedis(keyIds: readonly string[], rank: number, change: 1 | -1): void {
    for (const keyId of keyIds) {
      const counts = waitingAtRedis.get(keyId) ?? [0, 0, 0];
      counts[rank] = (counts[rank] ?? 0) + change;
      if (counts.every((n) => n === 0)) waitingAtRedis.delete(keyId);
      else waitingAtRedis.set(keyId, counts);
    }
  }
  /**
   * Whether a call of `rank` goes to Redis at once, without its in-process turn: no call of this process as urgent
   * waits for the key (in its in-process line, or at Redis holding the in-process turn), and either a less urgent one
   * does or the call is `'high'`. In its in-process line it would reach Redis only when this process's spacing allows,
   * at the key's next free start at the earliest, which Redis grants (up to `lookahead` in advance) to a waiter
   * already there: another process's less urgent call. Redis spaces every start, so going at once costs one more
   * script call and no spacing; a process whose calls share one priority below `'high'` never does it.
   */
  function overtakes(keyIds: readonly string[], rank: number): boolean {
    return keyIds.every((keyId) => {
      const { waiting, atRedis } = ownCalls(keyId);
      const counts = waiting.map((n, r) => n + (atRedis[r] ?? 0));
      return upTo(counts, rank) === 0 && (rank === 0 || counts.slice(rank + 1).some((n) => n > 0));
    });
  }

  /**
   * For a call that will wait behind its own process's calls before Redis sees it (so its deadline would be checked
   * against the other processes' waiters only when it asks): its start if no call ahead of it left, at the earliest,
   * from Redis's line (`status`, which writes nothing): the key's next start, then one `interval + margin` for each
   * waiter in Redis's line and each call of this process's line at least as urgent. `undefined` when it will not wait
   * behind its own process's calls, or Redis does not answer (its first ask decides then).
   */
  async function earliestStartAt(keyIds: readonly string[], rank: number): Promise<number | undefined> {
    const mine = keyIds.map(ownCalls);
    if (mine.every(({ waiting, atRedis }) => upTo(waiting, rank) + upTo(atRedis, rank) === 0)) return undefined;
    try {
      const starts = await Promise.all(
        keyIds.map(async (keyId, index) => {
          const key = resolved.prefix + createHash('sha256').update(keyId).digest('hex');
          const [, , , micros = 0, ...inLine] = ((await call(key, 'status', '')) as unknown[]).map(Number);
          const before = upTo(inLine, rank) + upTo(mine[index]?.waiting ?? [], rank);
          return Date.now() + micros / 1000 + before * (interval + margin);
        }),
      );
      return Math.max(...starts);
    } catch {
      return undefined;
    }
  }

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

  async function reserve(
    entry: Held,
    signal: AbortSignal | undefined,
    options: AcquireOptions | undefined,
  ): Promise<Grant> {
    const { key, keyId, ticket } = entry;
    for (;;) {
      const asked = performance.now();
      const reply = parseReply(await raceAbort(call(key, 'acquire', ticket, askArgs(keyId, options)), signal));
      markUp();
      // Its start with every waiter ahead staying is past the deadline: it has left the line; nothing was sent.
      if (reply.verdict === 2) {
        entry.left = true;
        throw queueTimeout(options ?? {}, Math.round(Date.now() + reply.waitMs));
      }
      if (reply.verdict === 0 && reply.expectedMs !== undefined && options?.onQueued) {
        const info = {
          priority: options.priority ?? 'normal',
          position: reply.place ?? 0,
          estimatedStartAt: Math.round(Date.now() + reply.expectedMs),
        };
        callUserCallback('onQueued', options.onQueued, [info], undefined);
      }
      await sleep(reply.waitMs, signal);
      if (reply.verdict !== 1) continue;
      const usable = await confirmed(key, ticket, { asked, wait: reply.waitMs }, signal);
      if (usable) return usable;
    }
  }

  /**
   * `grant` when it is handed over within `margin` of its time; otherwise its start moved to now, or `undefined` when
   * it can no longer be used (the caller takes a new turn).
   */
  async function confirmed(
    key: string,
    ticket: string,
    grant: Grant,
    signal: AbortSignal | undefined,
  ): Promise<Grant | undefined> {
    if (performance.now() - grant.asked - grant.wait <= margin) return grant;
    // Handed over late (a busy or descheduled process, or a grant held while another budget was awaited): Redis may
    // have counted the slot as arrived, or granted the next one after it. Move its start to now before sending, or
    // take a new turn if it can no longer be used. The confirmation is held to the same rule: one whose answer came
    // more than `margin` after it was asked (it waited in the socket of a busy process) is confirmed again, so the
    // start Redis recorded is never older than `margin` when the request goes; another process may have been granted
    // the next start after it meanwhile.
    for (let confirmations = 0; ; confirmations++) {
      const confirming = performance.now();
      const { verdict } = parseReply(await raceAbort(call(key, 'start', ticket), signal));
      if (verdict !== 1) return undefined;
      // After a few slow confirmations in a row, `sent()` reports the real start instead (a busy process).
      if (performance.now() - confirming <= margin || confirmations === MAX_CONFIRMATIONS - 1) {
        return { asked: confirming, wait: 0 };
      }
    }
  }

  /**
   * A grant of every budget's Redis key, one after the other (in {@link budgetOrder}, as every process takes them: on
   * Redis Cluster the keys may sit in different hash slots, so no one script can take them together). A grant made
   * while a later budget was awaited is confirmed before the request goes, and taken anew if Redis has since granted
   * that key to someone else.
   */
  async function reserveAll(
    held: Held[],
    signal: AbortSignal | undefined,
    options: AcquireOptions | undefined,
  ): Promise<void> {
    for (const entry of held) entry.grant = await reserve(entry, signal, options);
    if (held.length === 1) return;
    for (let settled = false; !settled; ) {
      settled = true;
      for (const entry of held) {
        const still = await confirmed(entry.key, entry.ticket, entry.grant as Grant, signal);
        if (still) entry.grant = still;
        else {
          entry.grant = await reserve(entry, signal, options);
          settled = false;
        }
      }
    }
  }

  function slot({ key, ticket, grant }: Held): ReleaseSlot {
    let released = false;
    let wasSent = false;
    let reportedAt = Number.NEGATIVE_INFINITY;
    const release = (outcome?: SlotOutcome) => {
      if (released) return;
      released = true;
      // Never sent: the grant is given back (Redis restores the key's previous start if no later grant was made).
      if (outcome?.unused === true && !wasSent) notify(key, 'cancel', ticket);
      // The answer (or failure) is what the next request of the key waits for.
      else if (waitForAnswer) notify(key, 'release', ticket);
    };
    const sent = () => {
      if (released) return;
      wasSent = true;
      // Each call moves the start later (fetch called, then the body written). Redis recorded the granted time: a
      // start more than `margin` after it is reported, so Redis moves the key's start to its own clock.
      const now = performance.now();
      const { asked, wait } = grant as Grant;
      if (now - asked - wait > margin && now - reportedAt > margin) {
        reportedAt = now;
        notify(key, 'sent', ticket);
      }
    };
    return Object.assign(release, { sent });
  }

  async function acquireAll(
    keyIds: readonly string[],
    signal: AbortSignal | undefined,
    acquireOptions?: AcquireOptions,
  ): Promise<ReleaseSlot> {
    signal?.throwIfAborted();
    for (const keyId of keyIds) {
      if (typeof keyId !== 'string')
        throw new TypeError(`RateLimiter.acquire: keyId must be a string; got ${typeof keyId}`);
    }
    checkPolicy();
    const order = budgetOrder(keyIds);
    const options = queuedOnce(acquireOptions);
    const rank = rankOf(options?.priority ?? 'normal');
    // A call more urgent than every call of this process waiting for the key goes to Redis at once (see `overtakes`).
    const overtaking = overtakes(order, rank);
    if (!overtaking && options?.deadline !== undefined && !(performance.now() < downUntil)) {
      const startAt = await raceAbort(earliestStartAt(order, rank), signal);
      if (startAt !== undefined && startAt > options.deadline) throw queueTimeout(options, Math.round(startAt));
    }
    let localRelease = overtaking ? undefined : await localSlots(local[ACQUIRE_HELD], order, signal, options);
    if (resolved.onUnavailable === 'local' && performance.now() < downUntil) {
      localRelease ??= await localSlots(local[ACQUIRE_HELD], order, signal, options);
      return fallback(order, signal, localRelease, options) as Promise<ReleaseSlot>;
    }
    const held: Held[] = order.map((keyId) => ({
      keyId,
      key: resolved.prefix + createHash('sha256').update(keyId).digest('hex'),
      ticket: randomUUID(),
      grant: undefined,
    }));
    // The call's deadline ends the wait at Redis too (plus margin, the tolerance of a grant's own timer).
    const waiting = untilDeadline(signal, options, margin);
    atRedis(order, rank, 1);
    let leftRedis = false;
    try {
      await reserveAll(held, waiting.signal, options);
      return joinSlots([localRelease, ...held.map(slot)]) as ReleaseSlot;
    } catch (error) {
      // Whatever it held is given back, every budget's grant and place in line. A call abandoned at its deadline may
      // still run later: the cancel, queued behind it on the same connection, undoes it.
      for (const { key, ticket, left } of held) if (!left) notify(key, 'cancel', ticket);
      if (signal?.aborted) {
        localRelease?.({ unused: true });
        throw signal.reason;
      }
      const late = waiting.signal?.aborted ? waiting.signal.reason : error;
      if (late instanceof QueueTimeoutError) {
        localRelease?.({ unused: true });
        throw late;
      }
      // A setup problem is not an outage: falling back would send unshared, for good.
      const problem = configurationProblem(error);
      if (problem) {
        localRelease?.({ unused: true });
        throw new RateLimiterConfigurationError(
          `The Redis rate limiter cannot work: ${problem}; the request was not sent`,
          {
            cause: error,
          },
        );
      }
      if (resolved.onUnavailable === 'fail') {
        localRelease?.({ unused: true });
        throw new RateLimiterUnavailableError(
          `The Redis rate limiter is unavailable (${describe(error)}); the request was not sent`,
          { cause: error },
        );
      }
      markDown(error);
      atRedis(order, rank, -1);
      leftRedis = true;
      // An overtaking call takes its in-process turn too before it goes on this process's own limit.
      localRelease ??= await localSlots(local[ACQUIRE_HELD], order, signal, options);
      return fallback(order, signal, localRelease, options) as Promise<ReleaseSlot>;
    } finally {
      waiting.dispose();
      if (!leftRedis) atRedis(order, rank, -1);
    }
  }

  /**
   * Each budget's queue: the waiters of every process (each process's own as it published them at its last ask, this
   * process's as they are now), and the next start Redis allows. When Redis does not answer, this process's alone.
   */
  async function status(keyIds: readonly string[]): Promise<QueueStatus[]> {
    const locals = await local[QUEUE_STATUS](keyIds);
    return Promise.all(
      keyIds.map(async (keyId, index) => {
        const mine = locals[index] as QueueStatus;
        const key = resolved.prefix + createHash('sha256').update(keyId).digest('hex');
        let reply: number[];
        try {
          reply = ((await call(key, 'status', '')) as unknown[]).map(Number);
        } catch {
          return mine;
        }
        const [high = 0, normal = 0, low = 0, micros = 0] = reply;
        const waiting = {
          high: Math.max(high, mine.waiting.high),
          normal: Math.max(normal, mine.waiting.normal),
          low: Math.max(low, mine.waiting.low),
        };
        const now = Date.now();
        const nextAt = Math.max(now + micros / 1000, mine.nextSlotAt ?? now);
        return {
          waiting,
          nextSlotAt: nextAt > now ? Math.round(nextAt) : undefined,
          estimatedStartAt: estimatesFrom(waiting, nextAt, interval + margin),
        };
      }),
    );
  }

  const limiter: MultiBudgetLimiter & QueueStatusLimiter = {
    acquire: (keyId, signal, options) => acquireAll([keyId], signal, options),
    [ACQUIRE_ALL]: acquireAll,
    [QUEUE_STATUS]: status,
  };
  return limiter;
}
