import { createHash } from 'node:crypto';
import { callUserCallback } from '../internal/callback.js';
import type { DedupeClaim, WebhookDedupeStore } from '../webhooks/dedupe-store.js';
import { type RedisLike, scriptRunner, withDeadline } from './redis-client.js';
import { evictionWarning } from './redis-policy.js';

/** Options of {@link createRedisDedupeStore}. */
export interface RedisDedupeStoreOptions {
  /** Your Redis client: ioredis 5 or 6, or node-redis 4 or 5 (connected by you), recognised by its shape. */
  redis: RedisLike;
  /**
   * The start of every Redis key the store writes: the prefix and the SHA-256 hash of the event id. Every key expires
   * (after the processing lease, then after the replay window).
   * @default 'invoicing-service-sdk:webhook:'
   */
  prefix?: string;
  /** The deadline of each Redis call, in milliseconds; past it the call rejects and the handler answers 500. @default 1000 */
  timeout?: number;
  /**
   * Where a Redis that can evict the store's records is reported (once, on first use). @default console
   */
  logger?: { warn(message: string): void } | undefined;
}

// One script, one key: a claim holds `claim:<token>` while the event is processed, then `processed`.
const DEDUPE_SCRIPT = `
local key, op, token, ms = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
local v = redis.call('GET', key)
local mine = v == 'claim:' .. token
if op == 'claim' then
  if not v then
    redis.call('SET', key, 'claim:' .. token, 'PX', ms)
    return 'claimed'
  end
  if v == 'processed' then return 'processed' end
  return 'processing'
elseif op == 'commit' then
  if mine or not v then redis.call('SET', key, 'processed', 'PX', ms) end
  return 'ok'
elseif op == 'release' then
  if mine then redis.call('DEL', key) end
  return 'ok'
end
return redis.error_reply('invoicing-service-sdk: unknown op ' .. tostring(op))
`;
const DEDUPE_SCRIPT_SHA = createHash('sha1').update(DEDUPE_SCRIPT).digest('hex');
const CLAIMS: readonly string[] = ['claimed', 'processing', 'processed'];

function milliseconds(value: unknown, name: string): string {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1) {
    throw new TypeError(`RedisDedupeStore: ${name} must be a finite number >= 1 (milliseconds); got ${String(value)}`);
  }
  return String(Math.ceil(value));
}

function text(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`RedisDedupeStore: ${name} must be a non-empty string; got ${typeof value}`);
  }
  return value;
}

/**
 * A {@link WebhookDedupeStore} in Redis, shared by every process and server that receives the service's webhooks:
 * a redelivery or a replay reaches `onEvent` once across all of them. Each method is one atomic Lua script on one
 * Redis key (Cluster-safe); a claim belongs to the delivery whose token it holds.
 *
 * @throws {TypeError} when `redis` is not an ioredis or node-redis client, or an option is out of range.
 * @example
 * import Redis from 'ioredis';
 * import { createWebhookHandler } from 'invoicing-service-sdk/webhooks';
 * import { createRedisDedupeStore } from 'invoicing-service-sdk/redis';
 *
 * const dedupe = createRedisDedupeStore({ redis: new Redis(process.env.REDIS_URL) });
 * const handler = createWebhookHandler({ secret, onEvent, dedupe });
 */
export function createRedisDedupeStore(options: RedisDedupeStoreOptions): WebhookDedupeStore {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createRedisDedupeStore: pass an options object, for example { redis }');
  }
  const prefix = options.prefix ?? 'invoicing-service-sdk:webhook:';
  if (typeof prefix !== 'string')
    throw new TypeError(`createRedisDedupeStore: prefix must be a string; got ${typeof prefix}`);
  const timeout = options.timeout ?? 1000;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout < 1) {
    throw new TypeError(
      `createRedisDedupeStore: timeout must be a finite number >= 1 (milliseconds); got ${String(timeout)}`,
    );
  }
  const run = scriptRunner(options.redis, DEDUPE_SCRIPT, DEDUPE_SCRIPT_SHA, 'createRedisDedupeStore: redis');
  const logger = options.logger ?? console;
  // An evicted record lets a redelivered event run onEvent again: warned once, on first use.
  const checkPolicy = evictionWarning(options.redis, 'the Redis webhook dedupe store', (message) =>
    callUserCallback('logger.warn', (m: string) => logger.warn(m), [message], undefined),
  );
  const call = (op: string, eventId: string, token: string, ms: string) => {
    const key = prefix + createHash('sha256').update(text(eventId, 'eventId')).digest('hex');
    return withDeadline(() => run(key, [op, text(token, 'token'), ms]), timeout, `the webhook dedupe script (${op})`);
  };
  return {
    async claim(eventId, leaseMs, token): Promise<DedupeClaim> {
      checkPolicy();
      const reply = String(await call('claim', eventId, token, milliseconds(leaseMs, 'leaseMs')));
      if (!CLAIMS.includes(reply)) throw new Error(`The webhook dedupe script answered ${reply.slice(0, 100)}`);
      return reply as DedupeClaim;
    },
    async commit(eventId, ttlMs, token) {
      await call('commit', eventId, token, milliseconds(ttlMs, 'ttlMs'));
    },
    async release(eventId, token) {
      await call('release', eventId, token, '0');
    },
  };
}
