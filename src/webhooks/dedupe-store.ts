/**
 * What a claim on an `event_id` found: `'claimed'` (first sight; this delivery processes the event),
 * `'processing'` (another delivery holds it right now) or `'processed'` (done before: a duplicate or a replay).
 */
export type DedupeClaim = 'claimed' | 'processing' | 'processed';

/**
 * Where the webhook handler records the `event_id`s it has seen, so a redelivery or a replay does not reach
 * `onEvent` twice. The signature carries no timestamp, so the event id is the only replay defence.
 * The default is an in-memory store ({@link createMemoryDedupeStore}); with several processes or servers,
 * implement these three methods over a shared store such as Redis or a database table.
 *
 * The handler calls `claim`, then `onEvent`, then `commit` on success or `release` on failure, passing the same
 * `token` (a random UUID, new for each delivery) to all three. When `claim` itself rejects (a timeout, say), the
 * handler answers 500 and also calls `release` with the token, without waiting, in case the claim was taken anyway. A claim belongs to the delivery whose token it holds:
 * when a slow delivery's lease ran out and another delivery claimed the id, the slow one's `commit` or `release`
 * must leave the other's claim alone. Each method must be atomic for one id.
 *
 * @example
 * // Redis through ioredis, one key per event: the key holds the owner's token while processing, then 'processed'.
 * const COMMIT = `local v = redis.call('GET', KEYS[1])
 * if v == ARGV[1] or not v then return redis.call('SET', KEYS[1], 'processed', 'PX', ARGV[2]) end return 0`;
 * const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
 * const store: WebhookDedupeStore = {
 *   async claim(id, leaseMs, token) {
 *     if (await redis.set(`webhook:${id}`, token, 'PX', leaseMs, 'NX')) return 'claimed';
 *     return (await redis.get(`webhook:${id}`)) === 'processed' ? 'processed' : 'processing';
 *   },
 *   async commit(id, ttlMs, token) { await redis.eval(COMMIT, 1, `webhook:${id}`, token, ttlMs); },
 *   async release(id, token) { await redis.eval(RELEASE, 1, `webhook:${id}`, token); },
 * };
 */
export interface WebhookDedupeStore {
  /**
   * Records `eventId` as being processed by the owner `token`, unless it is already recorded, in one atomic step
   * (Redis `SET key token NX PX leaseMs`; SQL `INSERT ... ON CONFLICT` that only takes over an expired row).
   * The record expires after `leaseMs`, so a process that dies while handling the event does not block it forever.
   * @returns `'claimed'` when this call recorded it, otherwise what was already recorded.
   */
  claim(eventId: string, leaseMs: number, token: string): Promise<DedupeClaim>;
  /**
   * Marks `eventId` processed, kept for `ttlMs` (the replay window), when it is claimed by `token` or no longer
   * recorded at all (the lease ran out and nobody claimed it since). Does nothing while another token's claim holds
   * it, or when it is already processed: that delivery decides.
   */
  commit(eventId: string, ttlMs: number, token: string): Promise<void>;
  /**
   * Forgets `eventId` when it is claimed by `token` and not processed, so the service's redelivery can succeed.
   * Does nothing otherwise: another delivery's claim and a processed record are kept.
   */
  release(eventId: string, token: string): Promise<void>;
}

/** Whether `value` has the three methods of a {@link WebhookDedupeStore}. */
export function isDedupeStore(value: unknown): value is WebhookDedupeStore {
  const store = value as Partial<WebhookDedupeStore> | null | undefined;
  return (
    typeof store === 'object' &&
    store !== null &&
    typeof store.claim === 'function' &&
    typeof store.commit === 'function' &&
    typeof store.release === 'function'
  );
}
