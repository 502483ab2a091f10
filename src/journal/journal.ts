// The journal's contract: what the client records about each e-way bill request, so that a crash between sending and
// recording the answer never leads to a blind resend. Two implementations ship (a file, Redis); partners may write
// their own on their database, following the example on `Journal`.

/** Where a record belongs: the service's base URL and the document's `hash_id`. */
export interface JournalDocument {
  /** The base URL the request goes to, as `ServiceClient.baseUrl` gives it (no trailing slash). */
  readonly baseUrl: string;
  /** The document's `hash_id`. */
  readonly docHashId: string;
}

/**
 * What is known about a document:
 * - `'sent-maybe'`: a request was recorded before it left and no outcome was recorded after it (a crash, a lost
 *   answer, a request still in flight). The bill may exist: never resend blindly, recover (a 604 then means it exists);
 * - `'generated'`: the bill exists (`result` holds what the service answered);
 * - `'refused'`: the service refused this body for good (`error` holds the refusal's JSON form).
 */
export type JournalStatus = 'sent-maybe' | 'generated' | 'refused';

/** What was known of a generated bill. */
export interface JournalResult {
  /** How the bill came to exist: the request's own success, or a 604 "already generated" after an uncertain attempt. */
  readonly outcome: 'generated' | 'already-generated';
  /** The service's message. */
  readonly message: string;
  /** The e-way bill number, when the message held one. */
  readonly ewayBillNumber?: string | undefined;
}

/** One document's record. Times are milliseconds since the epoch on the journal's clock. */
export interface JournalRecord extends JournalDocument {
  readonly status: JournalStatus;
  /** SHA-256 (hex) of the body last recorded as sent ({@link journalBodyHash}). */
  readonly bodyHash: string;
  /**
   * The JSON body last recorded as sent, while the outcome is unknown (`recover()` resends it); `undefined` once the
   * outcome is known (the hash is kept): business data stays at rest only as long as it is needed.
   */
  readonly body: string | undefined;
  /** A short hash of the API key the request was sent with ({@link journalKeyHash}); never the key. */
  readonly keyHash: string | undefined;
  /** The id of the latest attempt recorded (new for each `recordIntent`). */
  readonly attempt: string;
  /** When the latest intent was recorded. */
  readonly sentAt: number;
  /** Until when a request recorded so far may still be in flight at the service: resend only after it. */
  readonly inFlightUntil: number;
  /** When the record last changed. */
  readonly at: number;
  /** With `'generated'`: the answer. */
  readonly result: JournalResult | undefined;
  /** With `'refused'`: the refusal (`PortalError.toJSON()`, ...). */
  readonly error: Readonly<Record<string, unknown>> | undefined;
}

/** What the client records before a request leaves. */
export interface JournalIntent extends JournalDocument {
  /** The owner of the claim (see {@link Journal.claim}): the intent is refused unless it still holds it. */
  readonly owner: string;
  /** SHA-256 of `body` ({@link journalBodyHash}). */
  readonly bodyHash: string;
  /** The JSON body, exactly as it will be sent. */
  readonly body: string;
  /** {@link journalKeyHash} of the key, when known. */
  readonly keyHash?: string | undefined;
  /** How long from now the request may be in flight at the service (its timeouts and retries, with a margin). */
  readonly inFlightMs: number;
}

/** What the client records once the request's outcome is known. */
export type JournalOutcome =
  | { readonly status: 'generated'; readonly result: JournalResult }
  | { readonly status: 'refused'; readonly error: Readonly<Record<string, unknown>> }
  /** The attempt certainly never reached the service (refused connection, abort before sending): it is forgotten. */
  | { readonly status: 'not-sent' };

/** What {@link Journal.claim} found. */
export type JournalClaim =
  | {
      /** This owner holds the document until `expiresAt` (a new claim, or its own claim renewed). */
      readonly claimed: true;
      readonly expiresAt: number;
      readonly record: JournalRecord | undefined;
      /** The journal's clock when it answered: compare `record.inFlightUntil` with it, not with the local clock. */
      readonly now: number;
    }
  | {
      /** Another owner holds the document until `expiresAt`: wait, then claim again. */
      readonly claimed: false;
      readonly owner: string;
      readonly expiresAt: number;
      readonly record: JournalRecord | undefined;
      readonly now: number;
    };

/** What a compaction did. */
export interface JournalCompaction {
  /** Records dropped: a known outcome older than `maxAgeMs`. */
  readonly dropped: number;
  /** Records kept, every unknown outcome among them. */
  readonly kept: number;
}

/** How old a record with a known outcome may grow before compaction drops it, by default: 7 days. */
export const DEFAULT_JOURNAL_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Where the client remembers what it sent, across crashes and processes: `new ServiceClient({ journal })`. Records are
 * keyed by base URL and document id and hold the body's hash, the body itself while the outcome is unknown, the key's
 * hash (never the key), the status and the times.
 *
 * The client calls, per document: `claim` (with a lease, so two live processes never send it at once), then, before
 * the request leaves, `recordIntent` (it must be durable when it resolves), then `recordOutcome` with the attempt id
 * `recordIntent` returned, then `release`. `pending` lists the unknown outcomes for `recover()`; `compact` drops known
 * outcomes older than `maxAgeMs` and never an unknown one.
 *
 * Rules an implementation keeps, each atomic for one document:
 * - `claim` takes the document when nobody holds it or the holder's lease ran out, renews it for the same owner, and
 *   otherwise names the holder; it always returns the record.
 * - `recordIntent` rejects with `JournalClaimLostError` unless `owner` holds a live claim. It keeps the record it
 *   replaces (unless that one is `'generated'`) as the record's "before", and sets `'sent-maybe'`, a new `attempt`, the
 *   body, `sentAt` = now and `inFlightUntil` = the later of now + `inFlightMs` and a `'sent-maybe'` record's own.
 * - `recordOutcome(doc, attempt, outcome)`: `'generated'` always applies (a bill exists, whoever sent it);
 *   `'refused'` and `'not-sent'` apply only while the record is `'sent-maybe'` with that `attempt` (a late answer of
 *   an attempt another process has since replaced changes nothing). `'not-sent'` puts back the "before" record (or
 *   deletes the record when there was none). A known outcome drops the body and keeps the hash.
 * - `release` ends the owner's claim; another owner's claim is left alone.
 *
 * The file journal (`createFileJournal`) is one process's; the Redis journal (`createRedisJournal`) is shared by many.
 *
 * @example
 * // PostgreSQL (node-postgres), one row per document; `now` is the database's clock. A sketch of `claim`:
 * // CREATE TABLE ewb_journal (base_url text, doc_hash_id text, status text, body_hash text, body text, key_hash text,
 * //   attempt text, sent_at bigint, in_flight_until bigint, at bigint, result jsonb, error jsonb, before jsonb,
 * //   owner text, owner_until bigint, PRIMARY KEY (base_url, doc_hash_id));
 * async claim({ baseUrl, docHashId }, owner, leaseMs) {
 *   const { rows: [row] } = await pool.query(
 *     `INSERT INTO ewb_journal (base_url, doc_hash_id, owner, owner_until)
 *      VALUES ($1, $2, $3, $5 + $4) ON CONFLICT (base_url, doc_hash_id) DO UPDATE
 *        SET owner = $3, owner_until = $5 + $4
 *        WHERE ewb_journal.owner IS NULL OR ewb_journal.owner = $3 OR ewb_journal.owner_until <= $5
 *      RETURNING *`, [baseUrl, docHashId, owner, leaseMs, Date.now()]);
 *   // No row returned: another owner holds it; SELECT the row to name it. `recordIntent` is an UPDATE ... WHERE
 *   // owner = $owner AND owner_until > now, in one transaction (0 rows: throw JournalClaimLostError).
 * }
 * @example
 * // DynamoDB: one item per document (partition key `${baseUrl} ${docHashId}`); `claim` is an UpdateItem with
 * // ConditionExpression 'attribute_not_exists(#owner) OR #owner = :me OR ownerUntil <= :now', `recordIntent` an
 * // UpdateItem with '#owner = :me AND ownerUntil > :now', `recordOutcome` one conditioned on 'attempt = :attempt'
 * // (or none, for 'generated'). Known outcomes get a TTL attribute (at + maxAge) so DynamoDB drops them; unknown
 * // ones never have one. `pending` is a Query on a sparse index of the 'sent-maybe' items.
 */
export interface Journal {
  /** Takes (or renews) the claim of `owner` on the document for `leaseMs`, or says who holds it. */
  claim(document: JournalDocument, owner: string, leaseMs: number): Promise<JournalClaim>;
  /** Records that the body is about to be sent; durable (synced, replicated) when it resolves. */
  recordIntent(intent: JournalIntent): Promise<JournalRecord>;
  /** Records the outcome of `attempt`; resolves with the record as it now is (`undefined` when none is left). */
  recordOutcome(
    document: JournalDocument,
    attempt: string,
    outcome: JournalOutcome,
  ): Promise<JournalRecord | undefined>;
  /** Ends `owner`'s claim. */
  release(document: JournalDocument, owner: string): Promise<void>;
  /** The document's record, if any. */
  get(document: JournalDocument): Promise<JournalRecord | undefined>;
  /** The `'sent-maybe'` records (with their bodies), of one base URL when given. */
  pending(filter?: { readonly baseUrl?: string | undefined }): Promise<JournalRecord[]>;
  /** Drops known outcomes older than `maxAgeMs` (the journal's own setting by default); never an unknown one. */
  compact(options?: { readonly maxAgeMs?: number | undefined }): Promise<JournalCompaction>;
  /** Releases what the journal holds (a file lock, a file descriptor); the partner's Redis client stays open. */
  close(): Promise<void>;
}
