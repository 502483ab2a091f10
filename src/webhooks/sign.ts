import { toHex } from '../internal/hex.js';
import { loadNodeCrypto } from './crypto-backend.js';
import { hmacSha256WebCrypto } from './web-crypto.js';

/**
 * Signs a webhook body the way the service does: the lower-case hex HMAC-SHA256 of the raw body,
 * keyed with the webhook secret (spec, Events). Use it to build test deliveries.
 * Synchronous, so it needs node:crypto; in edge runtimes use {@link signWebhookAsync}.
 *
 * @param body - The exact body that will be sent (a string is encoded as UTF-8).
 * @param secret - The webhook secret.
 * @returns 64 lower-case hex characters, the value of the `X-Signature` header.
 * @throws {Error} When node:crypto is not available in this runtime.
 * @example
 * const body = JSON.stringify(event);
 * await fetch(url, { method: 'POST', body, headers: { 'X-Signature': signWebhook(body, secret) } });
 */
export function signWebhook(body: string | Uint8Array, secret: string): string {
  const nodeCrypto = loadNodeCrypto();
  if (nodeCrypto === undefined) {
    throw new Error(
      'signWebhook needs node:crypto, which this runtime does not provide; use `await signWebhookAsync(body, secret)` instead.',
    );
  }
  return nodeCrypto.createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * {@link signWebhook} through Web Crypto (`crypto.subtle`), for every runtime including edge ones.
 *
 * @param body - The exact body that will be sent (a string is encoded as UTF-8).
 * @param secret - The webhook secret.
 * @returns A promise of 64 lower-case hex characters, the value of the `X-Signature` header.
 * @throws {Error} When `crypto.subtle` is not available.
 * @example
 * const signature = await signWebhookAsync(body, secret);
 */
export async function signWebhookAsync(body: string | Uint8Array, secret: string): Promise<string> {
  return toHex(await hmacSha256WebCrypto(secret, body));
}
