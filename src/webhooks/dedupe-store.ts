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
 * Each method must be atomic for one id; the handler calls `claim`, then `onEvent`, then `commit` on success
 * or `release` on failure.
 *
 * @example
 * // Redis (ioredis or node-redis), one key per event:
 * const store: WebhookDedupeStore = {
 *   async claim(id, leaseMs) {
 *     if (await redis.set(`webhook:${id}`, 'processing', 'PX', leaseMs, 'NX')) return 'claimed';
 *     return (await redis.get(`webhook:${id}`)) === 'processed' ? 'processed' : 'processing';
 *   },
 *   async commit(id, ttlMs) { await redis.set(`webhook:${id}`, 'processed', 'PX', ttlMs); },
 *   async release(id) { await redis.del(`webhook:${id}`); },
 * };
 */
export interface WebhookDedupeStore {
  /**
   * Records `eventId` as being processed, unless it is already recorded, in one atomic step
   * (Redis `SET key processing NX PX leaseMs`, SQL `INSERT ... ON CONFLICT DO NOTHING`).
   * The record expires after `leaseMs`, so a process that dies while handling the event does not block it forever.
   * @returns `'claimed'` when this call recorded it, otherwise what was already recorded.
   */
  claim(eventId: string, leaseMs: number): Promise<DedupeClaim>;
  /** Marks a claimed `eventId` as processed, kept for `ttlMs` (the replay window). */
  commit(eventId: string, ttlMs: number): Promise<void>;
  /** Forgets a claimed `eventId` whose processing failed, so the service's redelivery can succeed. */
  release(eventId: string): Promise<void>;
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
