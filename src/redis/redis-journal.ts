import { createHash, randomUUID } from 'node:crypto';
import { JournalClaimLostError, JournalError } from '../errors/journal-error.js';
import { callUserCallback } from '../internal/callback.js';
import { checkDocument, checkId, checkIntent, checkMs, checkOutcome } from '../journal/checks.js';
import {
  DEFAULT_JOURNAL_MAX_AGE_MS,
  type Journal,
  type JournalClaim,
  type JournalDocument,
  type JournalRecord,
} from '../journal/journal.js';
import { INDEX_SCRIPT, INDEX_SCRIPT_SHA, JOURNAL_SCRIPT, JOURNAL_SCRIPT_SHA } from './journal-script.js';
import { type RedisLike, scriptRunner, withDeadline } from './redis-client.js';
import { parseReply, type ScriptReply } from './redis-journal-reply.js';
import { evictionWarning } from './redis-policy.js';

/** Options of {@link createRedisJournal}. */
export interface RedisJournalOptions {
  /** Your Redis client: ioredis 5 or 6, or node-redis 4 or 5 (connected by you), recognised by its shape. */
  redis: RedisLike;
  /**
   * The start of every Redis key the journal writes: `<prefix>{<sha256 of base URL and document id>}` per document,
   * and `<prefix>pending`, the index of documents whose outcome may be unknown.
   * @default 'invoicing-service-sdk:journal:'
   */
  prefix?: string | undefined;
  /**
   * How long a record with a known outcome is kept: its key expires that long after the outcome was recorded. A record
   * whose outcome is unknown never expires.
   * @default 604800000 (7 days)
   */
  maxAgeMs?: number | undefined;
  /** The deadline of each Redis call, in milliseconds; past it the call rejects with `JournalError`. @default 2000 */
  timeout?: number | undefined;
  /** Where a Redis that can evict the journal's records is reported (once, on first use). @default console */
  logger?: { warn(message: string): void } | undefined;
}

/** Documents read per page of `pending()` and `compact()`. */
const PAGE = 200;

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 300);

/**
 * A {@link Journal} in Redis, shared by every process and host that uses the same Redis: claims with leases keep two
 * live processes from sending one document at once, and a document one process may have sent is known to all.
 * Each change of a document is one atomic Lua script on one key (Cluster-safe), on Redis's clock. Records with a
 * known outcome expire after `maxAgeMs`; records with an unknown outcome never expire. `compact()` sweeps the index
 * of pending documents (entries whose document has a known outcome or is gone); it never drops a record.
 *
 * Redis must not evict the journal's keys: a warning goes to `logger.warn` when its `maxmemory-policy` can (set
 * `noeviction`). For the journal to survive a Redis restart, Redis must persist (AOF with `appendfsync everysec` or
 * `always`): an intent is acknowledged once Redis has it in memory.
 *
 * @throws {TypeError} when `redis` is not an ioredis or node-redis client, or an option is out of range. Methods
 *   reject with `JournalError` when Redis fails or does not answer in time, `JournalClaimLostError` for an intent
 *   without the claim.
 * @example
 * import Redis from 'ioredis';
 * import { createRedisJournal } from 'invoicing-service-sdk/redis';
 *
 * const journal = createRedisJournal({ redis: new Redis(process.env.REDIS_URL) });
 */
export function createRedisJournal(options: RedisJournalOptions): Journal {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createRedisJournal: pass an options object, for example { redis }');
  }
  const prefix = options.prefix ?? 'invoicing-service-sdk:journal:';
  if (typeof prefix !== 'string')
    throw new TypeError(`createRedisJournal: prefix must be a string; got ${typeof prefix}`);
  const keep = String(
    Math.ceil(checkMs(options.maxAgeMs ?? DEFAULT_JOURNAL_MAX_AGE_MS, 'createRedisJournal: maxAgeMs')),
  );
  const timeout = checkMs(options.timeout ?? 2000, 'createRedisJournal: timeout');
  const runDocument = scriptRunner(options.redis, JOURNAL_SCRIPT, JOURNAL_SCRIPT_SHA, 'createRedisJournal: redis');
  const runIndex = scriptRunner(options.redis, INDEX_SCRIPT, INDEX_SCRIPT_SHA, 'createRedisJournal: redis');
  const logger = options.logger ?? console;
  const checkPolicy = evictionWarning(options.redis, 'the Redis journal', (message) =>
    callUserCallback('logger.warn', (m: string) => logger.warn(m), [message], undefined),
  );
  const indexKey = `${prefix}pending`;
  const keyOf = ({ baseUrl, docHashId }: JournalDocument) =>
    `${prefix}{${createHash('sha256').update(`${baseUrl}\n${docHashId}`).digest('hex')}}`;

  async function call(run: typeof runDocument, key: string, args: string[], what: string): Promise<unknown> {
    checkPolicy();
    try {
      return await withDeadline(() => run(key, args), timeout, `the journal script (${what})`);
    } catch (error) {
      if (/CLAIM_LOST/.test(describe(error))) {
        throw new JournalClaimLostError(
          'journal.recordIntent: the document is not claimed by this owner (its lease ran out and another process claimed it); nothing may be sent',
          { cause: error },
        );
      }
      throw new JournalError(`The Redis journal failed (${what}): ${describe(error)}`, { cause: error });
    }
  }
  const onDocument = async (key: string, args: string[]): Promise<ScriptReply> =>
    parseReply(await call(runDocument, key, args, args[0] as string));
  const removeFromIndex = (key: string, attempt: string) =>
    call(runIndex, indexKey, ['remove', key, attempt], 'index remove').catch(() => {
      // Only a hint: a stale entry is skipped by readers and swept by compact().
    });

  /** Records `'not-sent'` for an attempt, and drops its index entry unless the document is still pending. */
  const forget = (key: string, attempt: string): Promise<void> =>
    onDocument(key, ['outcome', attempt, 'not-sent', '', keep]).then(
      async ({ record }) => {
        if (record?.status !== 'sent-maybe') await removeFromIndex(key, attempt);
      },
      () => {
        // Redis is away: the record stays 'sent-maybe' (a recovery then finds no bill, or its 604).
      },
    );

  /** Each index entry, a page at a time, with its document's record. */
  async function* sweep(): AsyncGenerator<{ key: string; attempt: string; record: JournalRecord | undefined }> {
    let cursor = '0';
    // Bounded by the index: HSCAN ends when its cursor comes back to 0.
    do {
      const [next, flat] = (await call(runIndex, indexKey, ['scan', cursor, String(PAGE)], 'index scan')) as [
        unknown,
        unknown[],
      ];
      cursor = String(next);
      const entries: [string, string][] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) entries.push([String(flat[i]), String(flat[i + 1])]);
      const records = await Promise.all(entries.map(([key]) => onDocument(key, ['get'])));
      for (const [i, [key, attempt]] of entries.entries()) yield { key, attempt, record: records[i]?.record };
    } while (cursor !== '0');
  }

  return {
    async claim(document, owner, leaseMs): Promise<JournalClaim> {
      const checked = checkDocument(document, 'claim');
      checkId(owner, 'journal.claim: owner');
      const lease = String(Math.ceil(checkMs(leaseMs, 'journal.claim: leaseMs')));
      const reply = await onDocument(keyOf(checked), ['claim', owner, lease]);
      const { record, now, ownerUntil: expiresAt } = reply;
      return reply.applied
        ? { claimed: true, expiresAt, record, now }
        : { claimed: false, owner: reply.owner, expiresAt, record, now };
    },
    async recordIntent(intent) {
      const { owner, baseUrl, docHashId, bodyHash, body, keyHash, inFlightMs } = checkIntent(intent);
      const key = keyOf({ baseUrl, docHashId });
      const attempt = randomUUID();
      // The index first: a document whose intent is recorded is always listed (a stale entry is harmless).
      await call(runIndex, indexKey, ['add', key, attempt], 'index add');
      try {
        const args = [owner, attempt, baseUrl, docHashId, bodyHash, body, keyHash ?? '', String(Math.ceil(inFlightMs))];
        const { record } = await onDocument(key, ['intent', ...args]);
        if (record === undefined) throw new JournalError('The Redis journal did not keep the intent');
        return record;
      } catch (error) {
        if (error instanceof JournalClaimLostError) void removeFromIndex(key, attempt);
        // Redis may have applied the intent and answered late (past the deadline): the caller will not send, so the
        // intent is undone. Sent now, on the same connection, it runs after the intent; it changes nothing otherwise.
        else void forget(key, attempt);
        throw error;
      }
    },
    async recordOutcome(document, attempt, outcome) {
      const checkedDocument = checkDocument(document, 'recordOutcome');
      checkId(attempt, 'journal.recordOutcome: attempt');
      const checked = checkOutcome(outcome);
      const { status } = checked;
      const json =
        checked.status === 'generated'
          ? JSON.stringify(checked.result)
          : checked.status === 'refused'
            ? JSON.stringify(checked.error)
            : '';
      const key = keyOf(checkedDocument);
      const { record } = await onDocument(key, ['outcome', attempt, status, json, keep]);
      if (record?.status !== 'sent-maybe') await removeFromIndex(key, attempt);
      return record;
    },
    async release(document, owner) {
      const checked = checkDocument(document, 'release');
      await onDocument(keyOf(checked), ['release', checkId(owner, 'journal.release: owner')]);
    },
    async get(document) {
      return (await onDocument(keyOf(checkDocument(document, 'get')), ['get'])).record;
    },
    async pending(filter) {
      const baseUrl = filter?.baseUrl;
      const seen = new Set<string>();
      const records: JournalRecord[] = [];
      for await (const { key, record } of sweep()) {
        // HSCAN may return an entry twice; a record is listed once.
        if (record?.status !== 'sent-maybe' || seen.has(key)) continue;
        seen.add(key);
        if (baseUrl === undefined || record.baseUrl === baseUrl) records.push(record);
      }
      return records;
    },
    async compact(compactOptions) {
      if (compactOptions?.maxAgeMs !== undefined) {
        throw new TypeError(
          'journal.compact: the Redis journal expires known outcomes by itself; set maxAgeMs on createRedisJournal',
        );
      }
      let dropped = 0;
      const kept = new Set<string>();
      for await (const { key, attempt, record } of sweep()) {
        if (record?.status === 'sent-maybe') kept.add(key);
        else if ((await call(runIndex, indexKey, ['remove', key, attempt], 'index remove')) === 1) dropped += 1;
      }
      return { dropped, kept: kept.size };
    },
    async close() {
      // The Redis client is the partner's: it stays open.
    },
  };
}
