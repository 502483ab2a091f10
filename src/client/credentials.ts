import { TimeoutError } from '../errors/transport-errors.js';
import { abortError } from '../internal/abort.js';
import { describeType } from '../internal/describe.js';
import { lazyPart } from '../internal/lazy.js';
import { type Redactor, redactor } from '../internal/redact.js';
import { rateLimitKeyId, rateLimitKeyIdNow } from '../throttle/rate-limiter.js';
import type { ReadBounds } from './bounded-read.js';

/** An API key, or a function that returns the current one (read before each attempt, so a rotated key is picked up). */
export type ApiKeySource = string | (() => string | Promise<string>);

/** The key one attempt sends, with what is derived from it. Lives for one attempt; never printed. */
export interface Credential {
  /** The `Authorization` header's value. */
  readonly authorization: string;
  /** The id of the budget telemetry labels: a hash of `rateLimitKey` when named, else of the key. Never the key. */
  readonly keyId: string;
  /**
   * Every rate-limit budget the attempt waits for: the key's own (a hash of the key), and the `rateLimitKey`'s (a hash
   * of the name) when one is named. A key is one budget whatever name a client gives it, so no name can give a key a
   * second budget, and a rotated key keeps its spacing through the name.
   */
  readonly budgets: readonly string[];
  /** Replaces this key in what goes into errors, logs and hooks. */
  readonly redact: Redactor;
  /** The key itself, to compare with the next read (a rotation). */
  readonly key: string;
}

function credentialOf(key: string, keyOwnId: string, nameId: string | undefined): Credential {
  const budgets = nameId === undefined ? [keyOwnId] : [keyOwnId, nameId];
  return { authorization: `Bearer ${key}`, keyId: nameId ?? keyOwnId, budgets, redact: redactor(key), key };
}

/**
 * The bound of a key function's read by the call's signal and timeout, imported on the first read of a key function:
 * a client of a fixed key never needs it.
 */
const bounded = /* @__PURE__ */ lazyPart(() => import('./bounded-read.js'));

/** Why a key is unusable, or `undefined`. The key itself is never quoted. */
export function keyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string') return `must be a string; got ${describeType(key)} (the value is not shown)`;
  const trimmed = key.trim();
  if (trimmed === '') return 'is empty';
  if (/[\s]/.test(trimmed) || /[^\x21-\x7e]/.test(trimmed)) {
    return 'contains whitespace or non-ASCII characters; check how it was copied (the key is not shown)';
  }
  return undefined;
}

/**
 * Reads the key for each attempt, before the attempt queues for its rate-limit slots (the key is one of its budgets).
 * A fixed key is derived once; a key function is called before every attempt, and once more after a 401, and what it
 * returns is kept only by that attempt (the spec: a regenerated key must reach every server that uses it).
 */
export class Credentials {
  readonly #source: ApiKeySource;
  readonly #budget: string | undefined;
  #fixed: Credential | undefined;
  #deriving: Promise<Credential> | undefined;
  #budgetId: string | undefined;

  constructor(source: ApiKeySource, rateLimitKey: string | undefined) {
    this.#source = source;
    this.#budget = rateLimitKey;
    // A fixed key is derived now where hashing is synchronous (Node, Bun, Deno): every call of the client then reaches
    // the limiter in the turn it was made, in call order. Elsewhere (Web Crypto) the first calls wait for it.
    if (typeof source === 'string') {
      const trimmed = source.trim();
      const keyOwnId = rateLimitKeyIdNow(trimmed);
      const nameId = rateLimitKey === undefined ? undefined : rateLimitKeyIdNow(`budget:${rateLimitKey}`);
      if (keyOwnId !== undefined) this.#fixed = credentialOf(trimmed, keyOwnId, nameId);
    }
  }

  /** Whether the key is read anew for each attempt (a function), so a refused key may have been rotated meanwhile. */
  get rotates(): boolean {
    return typeof this.#source === 'function';
  }

  /**
   * The credential of a fixed key once it is derived, without a turn of the event loop: what nearly every call of a
   * client uses. `undefined` until the first call derived it, and always for a key function.
   */
  get fixed(): Credential | undefined {
    return this.#fixed;
  }

  /**
   * A short label of the budget for telemetry: the first 8 hex digits of its id (never the key), or `'key-function'`
   * for a key function without `rateLimitKey` (whose budget is whatever key it returns; not read for a label).
   */
  async label(): Promise<string> {
    if (this.#budget !== undefined) {
      this.#budgetId ??= await rateLimitKeyId(`budget:${this.#budget}`);
      return this.#budgetId.slice(0, 8);
    }
    if (typeof this.#source === 'function') return 'key-function';
    return (this.#fixed ?? (await this.read())).keyId.slice(0, 8);
  }

  /**
   * The credential of the next attempt. A key function's read ends at `bounds`' abort (`AbortError`) or timeout
   * (`TimeoutError`, nothing sent); rejects with a `TypeError` (without the key) when its key is unusable.
   */
  read(bounds?: ReadBounds): Promise<Credential> {
    const source = this.#source;
    if (this.#fixed) return Promise.resolve(this.#fixed);
    // A fixed key is derived once: the calls made before the first derivation ended share it (30,000 calls fired at
    // once by a multi-tenant platform would otherwise hash and wrap the same key 30,000 times).
    if (typeof source === 'string') {
      this.#deriving ??= this.#derive(source).then(
        (made) => {
          this.#fixed = made;
          return made;
        },
        (error: unknown) => {
          // A hash that failed once (Web Crypto refusing, say) is tried again by the next call, not kept for ever.
          this.#deriving = undefined;
          throw error;
        },
      );
      return this.#deriving;
    }
    const reading = this.#readFunction(source);
    if (!bounds) return reading;
    if (bounded.value) return bounded.value.within(reading, bounds, abortError, TimeoutError);
    // The first reads wait for `within` to load: an abort meanwhile still rejects at once. `reading` is observed by
    // `within` once it is loaded, never an unhandled rejection meanwhile.
    reading.catch(() => {});
    const { signal } = bounds;
    return new Promise<Credential>((resolve, reject) => {
      const onAbort = () => reject(abortError(signal as AbortSignal));
      signal?.addEventListener('abort', onAbort);
      bounded
        .load()
        .then(({ within }) => within(reading, bounds, abortError, TimeoutError))
        .then(resolve, reject)
        .finally(() => signal?.removeEventListener('abort', onAbort));
    });
  }

  async #readFunction(source: () => string | Promise<string>): Promise<Credential> {
    let key: unknown;
    try {
      key = await source();
    } catch (error) {
      throw new TypeError('apiKey: the key function threw or rejected (see cause)', { cause: error });
    }
    const problem = keyProblem(key);
    if (problem) throw new TypeError(`apiKey: the key function's result ${problem}`);
    return this.#derive(key as string);
  }

  async #derive(key: string): Promise<Credential> {
    const trimmed = key.trim();
    this.#budgetId ??= this.#budget === undefined ? undefined : await rateLimitKeyId(`budget:${this.#budget}`);
    return credentialOf(trimmed, await rateLimitKeyId(trimmed), this.#budgetId);
  }
}
