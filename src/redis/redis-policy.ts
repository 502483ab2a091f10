// Whether a Redis may evict the SDK's keys. Every key the SDK writes expires, so under a volatile-* policy they are
// the first to go, and under allkeys-* any key may: an evicted rate-limit key lets two requests of one API key through
// less than a second apart, an evicted dedupe key runs a webhook's onEvent twice (issue 17, finding 6).
import type { IoRedisLike, SendCommandLike } from './redis-client.js';
import { redisClientKind, withDeadline } from './redis-client.js';

/** What `INFO memory` says about eviction, or why it could not be read. */
export type EvictionCheck =
  | { readonly problem: string | undefined }
  /** Redis refused or does not know INFO (an ACL, a renamed command): the policy cannot be read from here. */
  | { readonly unknown: string }
  /** Redis did not answer (down, restarting): try again on a later use; the outage is reported on its own. */
  | { readonly unreachable: true };

/**
 * The problem with a Redis server's eviction settings for the SDK's keys, in words (naming the policy and the fix), or
 * `undefined` when there is none: `maxmemory-policy noeviction`, or no `maxmemory` (0: Redis never evicts).
 * @example const problem = redisEvictionProblem('volatile-lru', 1_000_000); // "... noeviction ..."
 */
export function redisEvictionProblem(policy: string, maxmemory: number): string | undefined {
  if (policy === 'noeviction' || maxmemory === 0) return undefined;
  return (
    `Redis evicts keys under maxmemory-policy ${policy} (maxmemory ${maxmemory} bytes): the SDK's keys can be ` +
    'evicted before their time, and then two requests of one key may go out less than a second apart, ' +
    "a webhook's onEvent may run twice, or the journal may forget a document it sent. Set maxmemory-policy " +
    'noeviction on the Redis the SDK uses (or use a Redis of its own)'
  );
}

/** Reads `INFO memory` through the partner's client. */
async function infoMemory(redis: unknown): Promise<string> {
  const kind = redisClientKind(redis);
  if (kind === 'ioredis') return String(await (redis as IoRedisLike).call('INFO', 'memory'));
  const client = redis as Partial<SendCommandLike> & { info?: (section: string) => Promise<unknown> };
  if (typeof client.info === 'function') return String(await client.info('memory'));
  if (typeof client.sendCommand === 'function') return String(await client.sendCommand(['INFO', 'memory']));
  throw new Error('the client can run neither INFO nor a raw command');
}

/** Checks the server's eviction settings once; never throws (an INFO denied by an ACL is reported as unknown). */
export async function checkEviction(redis: unknown): Promise<EvictionCheck> {
  try {
    const text = await withDeadline(() => infoMemory(redis), 2000, 'INFO memory');
    const policy = /^maxmemory_policy:(\S+)/m.exec(text)?.[1];
    const maxmemory = Number(/^maxmemory:(\d+)/m.exec(text)?.[1] ?? Number.NaN);
    if (policy === undefined || Number.isNaN(maxmemory)) return { unknown: 'INFO memory did not name the policy' };
    return { problem: redisEvictionProblem(policy, maxmemory) };
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 200);
    return /NOPERM|unknown command|ERR /i.test(message) ? { unknown: message } : { unreachable: true };
  }
}

/**
 * Checks the server's eviction settings on first use and warns once through `warn` when they can evict the SDK's
 * keys, or when they could not be read. Returns the function to call on each use (it starts the check once).
 */
export function evictionWarning(redis: unknown, what: string, warn: (message: string) => void): () => void {
  let started = false;
  return () => {
    if (started) return;
    started = true;
    void checkEviction(redis).then((check) => {
      if ('unreachable' in check) {
        started = false; // checked again on a later use, once Redis answers
        return;
      }
      if ('unknown' in check) {
        warn(
          `invoicing-service-sdk: ${what}: could not read Redis's maxmemory-policy (${check.unknown}); it must be ` +
            "noeviction (or maxmemory 0), or the SDK's keys may be evicted",
        );
      } else if (check.problem) warn(`invoicing-service-sdk: ${what}: ${check.problem}`);
    });
  };
}
