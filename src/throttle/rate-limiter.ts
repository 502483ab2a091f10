/**
 * Tells a {@link RateLimiter} that the request it let start has ended (answered, failed or cancelled).
 * It may carry `sent`, which the client calls at the moment it hands the request to fetch: a limiter that spaces
 * requests can then measure from that moment rather than from its grant, which a busy event loop can delay.
 */
export type ReleaseSlot = (() => void) & { readonly sent?: (() => void) | undefined };

/**
 * Decides when a request of one API key may start. The client asks it before every attempt, and calls the
 * returned {@link ReleaseSlot} (if any) once the attempt has ended.
 *
 * The default is an in-process limiter ({@link createProcessRateLimiter}) shared by every `ServiceClient`
 * of the process. A limiter shared across processes (for example one backed by Redis) implements this
 * same interface and is passed as the client's `rateLimiter` option.
 */
export interface RateLimiter {
  /**
   * Resolves when a request identified by `keyId` may start. `keyId` is a hash of the API key, never the key.
   * Rejects with `signal.reason` as soon as `signal` aborts while waiting; the turn then passes to the next caller.
   * May resolve to a function that the client calls when the request has ended.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: `void` lets a plain `async (id) => { ... }` limiter fit.
  acquire(keyId: string, signal?: AbortSignal): Promise<ReleaseSlot | undefined | void>;
}

interface NodeHashLike {
  createHash(algorithm: 'sha256'): { update(data: string): { digest(encoding: 'hex'): string } };
}

/** The hex SHA-256 through node:crypto, without leaving the current turn; `undefined` where it is absent (edge). */
function nodeSha256Hex(text: string): string | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    const nodeCrypto = proc?.getBuiltinModule?.('node:crypto') as Partial<NodeHashLike> | undefined;
    return typeof nodeCrypto?.createHash === 'function'
      ? nodeCrypto.createHash('sha256').update(text).digest('hex')
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Computes the identifier of an API key for a {@link RateLimiter}: the hex SHA-256 of the key. On Node it hashes in
 * the current turn (node:crypto), so a request reaches the limiter without waiting on the thread pool, in call order;
 * elsewhere it uses Web Crypto.
 */
export async function rateLimitKeyId(apiKey: string): Promise<string> {
  const fromNode = nodeSha256Hex(apiKey);
  if (fromNode !== undefined) return fromNode;
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(apiKey));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
