import { describeType } from '../internal/describe.js';
import { type Redactor, redactor } from '../internal/redact.js';
import { rateLimitKeyId, rateLimitKeyIdNow } from '../throttle/rate-limiter.js';

/** An API key, or a function that returns the current one (read before each attempt, so a rotated key is picked up). */
export type ApiKeySource = string | (() => string | Promise<string>);

/** The key one attempt sends, with what is derived from it. Lives for one attempt; never printed. */
export interface Credential {
  /** The `Authorization` header's value. */
  readonly authorization: string;
  /** The rate-limit budget's id: a hash of `rateLimitKey`, or of the key. Never the key. */
  readonly keyId: string;
  /** Replaces this key in what goes into errors, logs and hooks. */
  readonly redact: Redactor;
  /** The key itself, to compare with the next read (a rotation). */
  readonly key: string;
}

/** The rate-limit budget of one attempt, and the key to send when it was read to find the budget. */
export interface Slot {
  readonly keyId: string;
  readonly credential?: Credential | undefined;
}

function credentialOf(key: string, keyId: string): Credential {
  return { authorization: `Bearer ${key}`, keyId, redact: redactor(key), key };
}

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
 * Reads the key for each attempt. A fixed key is derived once; a key function is called before every attempt and what
 * it returns is kept only by that attempt (the spec: a regenerated key must reach every server that uses it).
 */
export class Credentials {
  readonly #source: ApiKeySource;
  readonly #budget: string | undefined;
  #fixed: Credential | undefined;
  #fixedSlot: Slot | undefined;
  #deriving: Promise<Credential> | undefined;
  #budgetId: string | undefined;

  constructor(source: ApiKeySource, rateLimitKey: string | undefined) {
    this.#source = source;
    this.#budget = rateLimitKey;
    // A fixed key is derived now where hashing is synchronous (Node, Bun, Deno): every call of the client then reaches
    // the limiter in the turn it was made, in call order. Elsewhere (Web Crypto) the first calls wait for it.
    if (typeof source === 'string') {
      const trimmed = source.trim();
      const keyId = rateLimitKeyIdNow(rateLimitKey === undefined ? trimmed : `budget:${rateLimitKey}`);
      if (keyId !== undefined) this.#fix(credentialOf(trimmed, keyId));
    }
  }

  /** Whether the key is read anew for each attempt (a function), so a refused key may have been rotated meanwhile. */
  get rotates(): boolean {
    return typeof this.#source === 'function';
  }

  /**
   * The rate-limit budget of the next attempt. When `rateLimitKey` names it, the key is not read here: it is read once
   * the slot is granted ({@link Credentials.read}), so a call queued behind others sends the key current when it
   * leaves. Without it the budget is the key, which is read now and returned for the attempt to send.
   */
  async slot(): Promise<Slot> {
    if (this.#fixedSlot) return this.#fixedSlot;
    if (this.#budget !== undefined) {
      this.#budgetId ??= await rateLimitKeyId(`budget:${this.#budget}`);
      return { keyId: this.#budgetId };
    }
    const credential = await this.read();
    return { keyId: credential.keyId, credential };
  }

  /**
   * The slot of a fixed key once it is derived, without a turn of the event loop: what nearly every call of a client
   * uses. `undefined` until the first call derived it, and always for a key function.
   */
  get fixedSlot(): Slot | undefined {
    return this.#fixedSlot;
  }

  /**
   * A short label of the budget for telemetry: the first 8 hex digits of its id (never the key), or `'key-function'`
   * for a key function without `rateLimitKey` (whose budget is whatever key it returns; not read for a label).
   */
  async label(): Promise<string> {
    if (typeof this.#source === 'function' && this.#budget === undefined) return 'key-function';
    return (this.#fixedSlot ?? (await this.slot())).keyId.slice(0, 8);
  }

  /** The credential of the next attempt. Rejects with a `TypeError` (without the key) when the function's key is unusable. */
  read(): Promise<Credential> {
    const source = this.#source;
    if (this.#fixed) return Promise.resolve(this.#fixed);
    // A fixed key is derived once: the calls made before the first derivation ended share it (30,000 calls fired at
    // once by a multi-tenant platform would otherwise hash and wrap the same key 30,000 times).
    if (typeof source === 'string') {
      this.#deriving ??= this.#derive(source).then(
        (made) => this.#fix(made),
        (error: unknown) => {
          // A hash that failed once (Web Crypto refusing, say) is tried again by the next call, not kept for ever.
          this.#deriving = undefined;
          throw error;
        },
      );
      return this.#deriving;
    }
    return this.#readFunction(source);
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

  #fix(made: Credential): Credential {
    this.#fixed = made;
    this.#fixedSlot = { keyId: made.keyId, credential: made };
    return made;
  }

  async #derive(key: string): Promise<Credential> {
    const trimmed = key.trim();
    this.#budgetId ??= this.#budget === undefined ? undefined : await rateLimitKeyId(`budget:${this.#budget}`);
    return credentialOf(trimmed, this.#budgetId ?? (await rateLimitKeyId(trimmed)));
  }
}
