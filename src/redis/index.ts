/**
 * One API key's rate limit and the webhook de-duplication across processes, on the partner's own Redis
 * client (ioredis or node-redis, optional peer dependencies).
 *
 * @module invoicing-service-sdk/redis
 */

// invoicing-service-sdk/redis: one API key's rate limit, and the webhook de-duplication, across processes.
// Every public name of the subpath is listed here. The Redis client is the partner's own (optional peer dependency).
export { RateLimiterConfigurationError, RateLimiterUnavailableError } from '../errors/rate-limiter-unavailable.js';
export type { IoRedisLike, NodeRedisLike, RedisLike, SendCommandLike } from './redis-client.js';
export type { RedisDedupeStoreOptions } from './redis-dedupe-store.js';
export { createRedisDedupeStore } from './redis-dedupe-store.js';
export { redisEvictionProblem } from './redis-policy.js';
export { createRedisRateLimiter } from './redis-rate-limiter.js';
export type { RedisLimiterLogger, RedisRateLimiterOptions } from './redis-rate-limiter-options.js';
