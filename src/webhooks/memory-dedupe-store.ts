import type { DedupeClaim, WebhookDedupeStore } from './dedupe-store.js';

/** Options of {@link createMemoryDedupeStore}. */
export interface MemoryDedupeStoreOptions {
  /**
   * The most event ids kept. Past it, the oldest processed records are dropped first, so memory stays bounded
   * (what an id costs: docs/benchmarks.md); a replay older than the dropped records is then not recognised, so the replay window
   * is shorter than `dedupeTtlMs` once more than `maxEntries` events arrive within it. Raise it on a busy receiver.
   * A claim in progress is never dropped (its redelivery would run `onEvent` a second time): when claims in progress
   * alone fill the store, `claim` rejects, so the handler answers 500 and the service redelivers the event later.
   * @default 10000
   */
  maxEntries?: number | undefined;
  /** The clock, in milliseconds (for tests). @default Date.now */
  now?: (() => number) | undefined;
}

/** A {@link WebhookDedupeStore} in this process's memory, with the size it holds. */
export interface MemoryDedupeStore extends WebhookDedupeStore {
  /** How many ids are recorded now (expired ones included until the next sweep). */
  readonly size: number;
}

interface Entry {
  state: 'processing' | 'processed';
  /** The owner of a claim; `undefined` once processed. */
  token: string | undefined;
  expiresAt: number;
}

function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`${name} must be a positive integer; got ${String(value)}.`);
  }
  return value;
}

/**
 * An in-memory {@link WebhookDedupeStore}: the handler's default. Claims are owned by the token they were made with,
 * so only their owner commits or releases them. Records expire after their TTL and the
 * store never holds more than `maxEntries` ids: past it, the oldest processed ids are dropped, and a claim is refused
 * (it rejects) while claims in progress fill the store. It uses no timers (expired records are swept on use), so it
 * neither keeps a process alive nor breaks runtimes that forbid timers at start-up.
 * It only sees its own process: with several processes or servers, use a shared store (see the interface).
 *
 * @throws {TypeError} When `maxEntries` is not a positive integer.
 * @example
 * const handler = createWebhookHandler({ secret, onEvent, dedupe: createMemoryDedupeStore({ maxEntries: 50_000 }) });
 */
export function createMemoryDedupeStore(options: MemoryDedupeStoreOptions = {}): MemoryDedupeStore {
  const maxEntries = positiveInteger(options.maxEntries, 'maxEntries', 10_000);
  const now = options.now ?? Date.now;
  // Insertion order is kept; each write re-inserts, so the front holds the oldest writes.
  const entries = new Map<string, Entry>();

  /**
   * Drops expired records from the front, then the oldest processed ones until at most `limit` are left. A live claim
   * is skipped, never dropped: the store may stay above `limit` when live claims fill it.
   */
  function sweep(time: number, limit: number): void {
    for (const [id, entry] of entries) {
      if (entry.expiresAt > time && entries.size <= limit) break;
      if (entry.expiresAt <= time || entry.state === 'processed') entries.delete(id);
    }
  }

  function write(id: string, state: Entry['state'], token: string | undefined, ttlMs: number, time: number): void {
    entries.delete(id);
    entries.set(id, { state, token, expiresAt: time + ttlMs });
  }

  /** The record of `id` that still counts at `time`. */
  function live(id: string, time: number): Entry | undefined {
    const entry = entries.get(id);
    return entry !== undefined && entry.expiresAt > time ? entry : undefined;
  }

  return {
    get size() {
      return entries.size;
    },
    async claim(eventId, leaseMs, token): Promise<DedupeClaim> {
      const time = now();
      const entry = live(eventId, time);
      if (entry !== undefined) return entry.state;
      entries.delete(eventId); // an expired record of the id
      sweep(time, maxEntries - 1);
      if (entries.size >= maxEntries) {
        // Dropping a claim in progress would let its redelivery run the event twice: refuse this one instead, so the
        // handler answers 500 and the service redelivers it once a claim is settled.
        throw new Error(
          `The in-memory webhook dedupe store holds maxEntries (${maxEntries}) events being processed right now; ` +
            'this event is refused for now so that no event is processed twice. Raise maxEntries.',
        );
      }
      write(eventId, 'processing', token, leaseMs, time);
      return 'claimed';
    },
    async commit(eventId, ttlMs, token) {
      const time = now();
      const entry = live(eventId, time);
      // Another delivery's claim, or a processed record, is settled by its own owner.
      if (entry !== undefined && (entry.state === 'processed' || entry.token !== token)) return;
      write(eventId, 'processed', undefined, ttlMs, time);
      sweep(time, maxEntries);
    },
    async release(eventId, token) {
      const entry = entries.get(eventId);
      if (entry?.state === 'processing' && entry.token === token) entries.delete(eventId);
    },
  };
}
