import type { NodeCryptoLike, NodeSecretKey } from './crypto-backend.js';

/**
 * A small cache of what is derived from a webhook secret (an imported key), so that a receiver verifying delivery
 * after delivery with the same secret derives it once. Bounded: at most `max` secrets are held, the oldest admitted
 * goes first. Its state is in private fields, which `inspect` does not show, and the caches live in modules that no
 * public entry exports, so no caller, log or error message can reach the secrets they are keyed by.
 *
 * With `admitOnRepeat`, a secret is only admitted once it missed twice while among the last `max` misses, so a
 * receiver that cycles through more secrets than the cache holds (one per tenant, say) never pays for a key that is
 * evicted before it is used again.
 */
export class SecretKeyCache<K> {
  readonly #max: number;
  readonly #admitOnRepeat: boolean;
  readonly #keys = new Map<string, K>();
  readonly #recentMisses: string[] = [];

  constructor(max: number, admitOnRepeat: boolean) {
    this.#max = max;
    this.#admitOnRepeat = admitOnRepeat;
  }

  /** The cached key of `secret`, or `undefined`. */
  get(secret: string): K | undefined {
    return this.#keys.get(secret);
  }

  /** Whether a missed `secret` should be derived and {@link set} now (always, unless `admitOnRepeat`). */
  admit(secret: string): boolean {
    if (!this.#admitOnRepeat) return true;
    const misses = this.#recentMisses;
    const at = misses.indexOf(secret);
    if (at >= 0) {
      misses.splice(at, 1);
      return true;
    }
    if (misses.push(secret) > this.#max) misses.shift();
    return false;
  }

  /** Holds `key` for `secret`, evicting the oldest secret when full. */
  set(secret: string, key: K): void {
    if (!this.#keys.has(secret) && this.#keys.size >= this.#max) {
      const oldest = this.#keys.keys().next();
      if (oldest.done !== true) this.#keys.delete(oldest.value);
    }
    this.#keys.set(secret, key);
  }

  /** Forgets `secret` if it still maps to `key` (a failed import must not stay cached). */
  delete(secret: string, key: K): void {
    if (this.#keys.get(secret) === key) this.#keys.delete(secret);
  }

  /** How many secrets are held (for tests). */
  get size(): number {
    return this.#keys.size;
  }

  /** Drops every key (for tests). */
  clear(): void {
    this.#keys.clear();
    this.#recentMisses.length = 0;
  }
}

// A receiver has one secret, or two while it is rotated; a few more are kept in case several handlers share a process.
const MAX_CACHED_SECRETS = 8;

/**
 * node:crypto `KeyObject`s by secret. `createHmac(secret)` with a string converts the secret to bytes on every call;
 * with a `KeyObject` it does not. Making one costs a few HMACs of a small body, hence `admitOnRepeat`.
 */
export const nodeSecretKeys = new SecretKeyCache<NodeSecretKey>(MAX_CACHED_SECRETS, true);

/**
 * What to pass to node:crypto's `createHmac` for `secret`: its cached `KeyObject`, or the string itself until the
 * secret has come often enough to be worth one (or where the runtime has no `createSecretKey`).
 */
export function nodeHmacKey(nodeCrypto: NodeCryptoLike, secret: string): string | NodeSecretKey {
  const cached = nodeSecretKeys.get(secret);
  if (cached !== undefined) return cached;
  if (nodeCrypto.createSecretKey === undefined || !nodeSecretKeys.admit(secret)) return secret;
  let key: NodeSecretKey;
  try {
    key = nodeCrypto.createSecretKey(secret, 'utf8');
  } catch {
    return secret;
  }
  nodeSecretKeys.set(secret, key);
  return key;
}
