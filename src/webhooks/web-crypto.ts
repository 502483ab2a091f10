import { SecretKeyCache } from './secret-keys.js';

const encoder = new TextEncoder();

/** UTF-8 bytes of a string, or the bytes themselves. */
export function toBytes(value: string | Uint8Array): Uint8Array<ArrayBuffer> {
  if (typeof value === 'string') return encoder.encode(value);
  // Web Crypto wants an ArrayBuffer-backed view; copy a SharedArrayBuffer-backed or foreign one.
  return value.buffer instanceof ArrayBuffer ? (value as Uint8Array<ArrayBuffer>) : new Uint8Array(value);
}

function subtle(): SubtleCrypto {
  const s = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
  if (s === undefined) throw new Error('Web Crypto (globalThis.crypto.subtle) is not available in this runtime.');
  return s;
}

/** Imports an HMAC-SHA256 key for signing and verifying. */
export function importHmacKey(secret: string | Uint8Array): Promise<CryptoKey> {
  return subtle().importKey('raw', toBytes(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

// Importing costs about as much as signing a small body, and it is paid on a miss anyway, so every secret is admitted.
const cachedKeys = new SecretKeyCache<Promise<CryptoKey>>(8, false);

/**
 * The imported key of `secret`, reused while the same secret comes again, because importing costs about as much
 * as signing a small body. At most 8 keys are kept; the oldest goes first.
 */
export function hmacKeyFor(secret: string): Promise<CryptoKey> {
  const cached = cachedKeys.get(secret);
  if (cached !== undefined) return cached;
  const key = importHmacKey(secret);
  cachedKeys.set(secret, key);
  // A failed import must not stay cached.
  key.catch(() => cachedKeys.delete(secret, key));
  return key;
}

/** Whether `signature` is the HMAC-SHA256 of `data` under `secret`; `crypto.subtle.verify` compares in constant time. */
export async function verifyHmacWebCrypto(
  secret: string,
  data: string | Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  return subtle().verify('HMAC', await hmacKeyFor(secret), toBytes(signature), toBytes(data));
}

/** The HMAC-SHA256 of `data` keyed with `secret`, through Web Crypto. */
export async function hmacSha256WebCrypto(secret: string | Uint8Array, data: string | Uint8Array): Promise<Uint8Array> {
  const key = await importHmacKey(secret);
  return new Uint8Array(await subtle().sign('HMAC', key, toBytes(data)));
}
