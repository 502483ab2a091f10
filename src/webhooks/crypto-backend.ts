import { builtinModule, type ProcessLike } from '../internal/builtin.js';
/** A node:crypto secret `KeyObject`, opaque here. */
export interface NodeSecretKey {
  readonly type: 'secret';
}

/** The part of `node:crypto` the webhook code uses, typed structurally so no Node types leak into the API. */
export interface NodeCryptoLike {
  createHmac(
    algorithm: 'sha256',
    key: string | Uint8Array | NodeSecretKey,
  ): {
    update(data: string | Uint8Array): { digest(): Uint8Array; digest(encoding: 'hex'): string };
  };
  timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
  /** Absent in a runtime whose node:crypto lacks it; the secret string is then passed as it is. */
  createSecretKey?: ((key: string, encoding: 'utf8') => NodeSecretKey) | undefined;
}

/** Which HMAC implementation verifies: `node` (node:crypto) or `webcrypto` (`crypto.subtle`). */
export type CryptoPath = 'node' | 'webcrypto';

/** The `crypto` option of the webhook functions: a path, or `'auto'` (node:crypto when present). */
export type CryptoChoice = CryptoPath | 'auto';

/**
 * node:crypto from `proc.getBuiltinModule` (Node >= 22.3, Bun, Deno), or `undefined` where it is absent
 * (Workers, Vercel Edge, browsers). Takes the process object as an argument so tests can play an edge runtime.
 */
export function detectNodeCrypto(proc: ProcessLike | undefined): NodeCryptoLike | undefined {
  // An absent process object means an edge runtime (or a test playing one): no default lookup then.
  const candidate = (proc === undefined ? undefined : builtinModule('node:crypto', proc)) as
    | Partial<NodeCryptoLike>
    | undefined;
  const usable = typeof candidate?.createHmac === 'function' && typeof candidate.timingSafeEqual === 'function';
  return usable ? (candidate as NodeCryptoLike) : undefined;
}

let cachedNodeCrypto: NodeCryptoLike | null | undefined;

/**
 * node:crypto of this runtime, looked up once and synchronously; `undefined` where it is absent.
 * Never a static import, so the SDK stays loadable in edge runtimes.
 */
export function loadNodeCrypto(): NodeCryptoLike | undefined {
  if (cachedNodeCrypto === undefined) {
    cachedNodeCrypto = detectNodeCrypto((globalThis as { process?: ProcessLike }).process) ?? null;
  }
  return cachedNodeCrypto ?? undefined;
}

/**
 * The HMAC implementation to use: `'auto'` picks node:crypto when present (several times faster
 * than Web Crypto on Node), otherwise Web Crypto.
 * @throws {Error} When `'node'` is forced in a runtime without node:crypto.
 */
export function resolveCryptoPath(choice: CryptoChoice = 'auto'): CryptoPath {
  if (choice === 'webcrypto') return 'webcrypto';
  const present = loadNodeCrypto() !== undefined;
  if (choice === 'node' && !present) {
    throw new Error("crypto: 'node' was asked for, but node:crypto is not available in this runtime; use 'auto'.");
  }
  if (choice !== 'node' && choice !== 'auto') {
    throw new TypeError(`crypto must be 'auto', 'node' or 'webcrypto'; got ${JSON.stringify(choice)}.`);
  }
  return present ? 'node' : 'webcrypto';
}
