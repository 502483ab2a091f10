import { type CryptoChoice, resolveCryptoPath } from './crypto-backend.js';
import type { WebhookEvent } from './events.js';
import { parseWebhookEvent } from './parse-event.js';
import { normaliseRawBody, type RawBody } from './raw-body.js';
import { checkSignature } from './signature.js';

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /**
   * Which HMAC implementation to use. `'auto'` uses node:crypto where the runtime has it (Node, Bun, Deno)
   * and Web Crypto elsewhere (Workers, Vercel Edge); both give the same answers.
   * @default 'auto'
   */
  crypto?: CryptoChoice | undefined;
}

/**
 * Checks that a webhook secret is a non-empty string.
 * @throws {TypeError} When it is not, naming the option and where the secret comes from (never showing it).
 */
export function assertSecret(secret: unknown, name = 'secret'): asserts secret is string {
  if (typeof secret !== 'string' || secret === '') {
    throw new TypeError(
      `${name} must be the webhook secret from the dashboard's API integration section, as a non-empty string; ` +
        `got ${secret === '' ? 'an empty string' : typeof secret}.`,
    );
  }
}

/**
 * Verifies a webhook request and returns its event: checks the `X-Signature` HMAC-SHA256 of the raw body
 * in constant time, then parses and validates the envelope (spec, Events).
 *
 * @param rawBody - The body exactly as received: a string, Buffer/Uint8Array or ArrayBuffer. Never a parsed object.
 * @param signature - The `X-Signature` header value (hex, either case; surrounding whitespace ignored).
 * @param secret - The webhook secret.
 * @returns The event; `event.known` is false for an event type this SDK does not know.
 * @throws {WebhookVerificationError} The signature is missing, malformed or wrong (answer 401).
 * @throws {WebhookPayloadError} The signature is good but the body is not a valid envelope (answer 400).
 * @throws {TypeError} `rawBody` is not a raw body (for example `req.body` after `express.json()`), or the secret is empty.
 * @example
 * const event = await verifyWebhook(await request.text(), request.headers.get('x-signature'), secret);
 * if (event.known && event.event_type === 'document') console.log(event.data.hash_id);
 */
export async function verifyWebhook(
  rawBody: RawBody,
  signature: string | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const body = normaliseRawBody(rawBody);
  assertSecret(secret);
  const pending = checkSignature(body, signature, secret, resolveCryptoPath(options.crypto));
  if (pending !== undefined) await pending;
  return parseWebhookEvent(body);
}

/**
 * Only the signature half of {@link verifyWebhook}: checks the `X-Signature` HMAC-SHA256 of the raw body in constant
 * time and resolves without parsing the body. For receivers that store or forward the raw body as it came.
 *
 * @param rawBody - The body exactly as received: a string, Buffer/Uint8Array or ArrayBuffer. Never a parsed object.
 * @param signature - The `X-Signature` header value.
 * @param secret - The webhook secret.
 * @throws {WebhookVerificationError} The signature is missing, malformed or wrong.
 * @throws {TypeError} `rawBody` is not a raw body, or the secret is empty.
 * @example
 * await verifyWebhookSignature(rawBody, request.headers.get('x-signature'), secret);
 * await archive.put(rawBody); // authentic, still unparsed
 */
export async function verifyWebhookSignature(
  rawBody: RawBody,
  signature: string | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<void> {
  const body = normaliseRawBody(rawBody);
  assertSecret(secret);
  const pending = checkSignature(body, signature, secret, resolveCryptoPath(options.crypto));
  if (pending !== undefined) await pending;
}
