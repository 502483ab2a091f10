/**
 * One API key's rate limit, the webhook de-duplication and the journal of e-way bill requests across processes, on
 * the partner's own Redis client (ioredis or node-redis, optional peer dependencies).
 *
 * @module invoicing-service-sdk/redis
 */

export { JournalClaimLostError, JournalError } from '../errors/journal-error.js';
// invoicing-service-sdk/redis: one API key's rate limit, the webhook de-duplication and the journal, across processes.
// Every public name of the subpath is listed here. The Redis client is the partner's own (optional peer dependency).
export { RateLimiterConfigurationError, RateLimiterUnavailableError } from '../errors/rate-limiter-unavailable.js';
export type { IoRedisLike, NodeRedisLike, RedisLike, SendCommandLike } from './redis-client.js';
export type { RedisDedupeStoreOptions } from './redis-dedupe-store.js';
export { createRedisDedupeStore } from './redis-dedupe-store.js';
export type { RedisJournalOptions } from './redis-journal.js';
export { createRedisJournal } from './redis-journal.js';
export { redisEvictionProblem } from './redis-policy.js';
export { createRedisRateLimiter } from './redis-rate-limiter.js';
export type { RedisLimiterLogger, RedisRateLimiterOptions } from './redis-rate-limiter-options.js';
