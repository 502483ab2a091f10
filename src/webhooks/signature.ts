import { type CryptoPath, loadNodeCrypto } from './crypto-backend.js';
import { WebhookVerificationError } from './errors.js';
import { nodeHmacKey } from './secret-keys.js';
import { toBytes, verifyHmacWebCrypto } from './web-crypto.js';

/** The value of each ASCII hex digit by char code (either case), -1 for every other code below 128. */
const HEX_VALUES = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < 10; i++) table[48 + i] = i; // 0-9
  for (let i = 0; i < 6; i++) {
    table[65 + i] = 10 + i; // A-F
    table[97 + i] = 10 + i; // a-f
  }
  return table;
})();

/** The value of a hex digit's char code, or -1. */
function hexValue(code: number): number {
  return code < 128 ? (HEX_VALUES[code] as number) : -1;
}

/**
 * Writes the 32 bytes of an `X-Signature` header into `into`: 64 hex characters, either case, surrounding whitespace
 * ignored. No `sha256=` prefix: the spec defines the header as the bare hex digest.
 * @throws {WebhookVerificationError} `missing_signature` or `malformed_signature`.
 */
function readSignatureHeader(signature: unknown, into: Uint8Array): Uint8Array {
  if (signature === undefined || signature === null) throw new WebhookVerificationError('missing_signature');
  if (typeof signature !== 'string') throw new WebhookVerificationError('malformed_signature');
  const trimmed = signature.length === 64 ? signature : signature.trim();
  if (trimmed === '') throw new WebhookVerificationError('missing_signature');
  if (trimmed.length !== 64) throw new WebhookVerificationError('malformed_signature');
  for (let i = 0; i < 32; i++) {
    const high = hexValue(trimmed.charCodeAt(i * 2));
    const low = hexValue(trimmed.charCodeAt(i * 2 + 1));
    if ((high | low) < 0) throw new WebhookVerificationError('malformed_signature');
    into[i] = (high << 4) | low;
  }
  return into;
}

/**
 * The 32 bytes of an `X-Signature` header: 64 hex characters, either case, surrounding whitespace ignored.
 * No `sha256=` prefix: the spec defines the header as the bare hex digest.
 * @throws {WebhookVerificationError} `missing_signature` or `malformed_signature`.
 */
export function parseSignatureHeader(signature: unknown): Uint8Array {
  return readSignatureHeader(signature, new Uint8Array(32));
}

// The node path compares synchronously, so one buffer serves every call for the received bytes (they came in a
// header, and are not secret). The Web Crypto path awaits, so it gets its own bytes per call.
const received32 = new Uint8Array(32);

/**
 * Checks the body's HMAC-SHA256 under `secrets` (one, or each of a list) against the header, in constant time on both paths:
 * `timingSafeEqual` over two 32-byte digests, or `crypto.subtle.verify`. Every secret is tried, even after a match,
 * so the time taken depends on how many secrets there are, not on which one matched.
 * The node path finishes synchronously (no promise), which keeps the check close to a bare HMAC in cost.
 * @throws {WebhookVerificationError} When the header is missing, malformed or matches none of the secrets
 * (thrown, or as the rejection of the returned promise on the Web Crypto path).
 */
export function checkSignature(
  body: string | Uint8Array,
  signature: unknown,
  secrets: string | readonly string[],
  path: CryptoPath,
): undefined | Promise<void> {
  const nodeCrypto = path === 'node' ? loadNodeCrypto() : undefined;
  if (nodeCrypto !== undefined) {
    const received = readSignatureHeader(signature, received32);
    if (typeof secrets === 'string') {
      if (
        !nodeCrypto.timingSafeEqual(
          nodeCrypto.createHmac('sha256', nodeHmacKey(nodeCrypto, secrets)).update(body).digest(),
          received,
        )
      ) {
        throw new WebhookVerificationError('signature_mismatch');
      }
      return undefined;
    }
    let matched = false;
    for (const secret of secrets) {
      const expected = nodeCrypto.createHmac('sha256', nodeHmacKey(nodeCrypto, secret)).update(body).digest();
      // The comparison comes first so that it runs for every secret, not only until one matched.
      matched = nodeCrypto.timingSafeEqual(expected, received) || matched;
    }
    if (!matched) throw new WebhookVerificationError('signature_mismatch');
    return undefined;
  }
  const received = parseSignatureHeader(signature);
  const bytes = toBytes(body);
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return Promise.all(list.map((secret) => verifyHmacWebCrypto(secret, bytes, received))).then((results) => {
    if (!results.includes(true)) throw new WebhookVerificationError('signature_mismatch');
  });
}
