import { type CryptoChoice, resolveCryptoPath } from './crypto-backend.js';
import type { WebhookEvent } from './events.js';
import { parseWebhookEvent } from './parse-event.js';
import { normaliseRawBody, type RawBody } from './raw-body.js';
import { toSecretList, type WebhookSecret } from './secrets.js';
import { checkSignature } from './signature.js';

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /**
   * Which HMAC implementation to use. `'auto'` uses node:crypto where the runtime has it (Node, Bun, Deno)
   * and Web Crypto elsewhere (Workers, Vercel Edge); both give the same answers.
   * @default 'auto'
   */
  crypto?: CryptoChoice | undefined;
  /**
   * Refuse a known event type whose `data` does not match the spec's shape with a `WebhookPayloadError`. By default
   * such an event is returned unrecognised (`known: false`, `received_event_type`, `issues`), so nothing is lost.
   * @default false
   */
  strictPayload?: boolean | undefined;
}

/**
 * Verifies a webhook request and returns its event: checks the `X-Signature` HMAC-SHA256 of the raw body
 * in constant time, then parses and validates the envelope (spec, Events).
 *
 * @param rawBody - The body exactly as received: a string, Buffer/Uint8Array or ArrayBuffer. Never a parsed object.
 * @param signature - The `X-Signature` header value (hex, either case; surrounding whitespace ignored).
 * @param secret - The webhook secret, or an array of secrets while it is rotated: a signature made with any of them
 *   is accepted.
 * @returns The event, with unknown fields kept. For an event type this SDK does not know, or a known type whose `data`
 *   does not match the spec (see `issues`), `known` is false, `event_type` is `'unknown'` and `received_event_type`
 *   holds the type that came.
 * @throws {WebhookVerificationError} The signature is missing, malformed or matches none of the secrets (answer 401).
 * @throws {WebhookPayloadError} The signature is good but the body is not JSON or has no `event_id` or `event_type`
 *   (answer 400); with `strictPayload`, also a known event whose `data` does not match the spec.
 * @throws {TypeError} `rawBody` is not a raw body (for example `req.body` after `express.json()`), or the secret is
 *   empty (an empty string, an empty array or an empty string in the array).
 * @example
 * const event = await verifyWebhook(await request.text(), request.headers.get('x-signature'), secret);
 * if (event.event_type === 'document') console.log(event.data.hash_id);
 * // While the secret is rotated, both the new and the old secret are accepted:
 * await verifyWebhook(rawBody, signature, [newSecret, oldSecret]);
 */
export function verifyWebhook(
  rawBody: RawBody,
  signature: string | null | undefined,
  secret: WebhookSecret,
  options?: VerifyWebhookOptions,
): Promise<WebhookEvent> {
  // Not an async function: on the node path the whole check is synchronous, and one settled promise is all it costs.
  try {
    const body = normaliseRawBody(rawBody);
    const pending = check(body, signature, secret, options);
    if (pending === undefined) return Promise.resolve(parseWebhookEvent(body, options));
    return pending.then(() => parseWebhookEvent(body, options));
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Only the signature half of {@link verifyWebhook}: checks the `X-Signature` HMAC-SHA256 of the raw body in constant
 * time and resolves without parsing the body. For receivers that store or forward the raw body as it came.
 *
 * @param rawBody - The body exactly as received: a string, Buffer/Uint8Array or ArrayBuffer. Never a parsed object.
 * @param signature - The `X-Signature` header value.
 * @param secret - The webhook secret, or an array of secrets while it is rotated.
 * @throws {WebhookVerificationError} The signature is missing, malformed or matches none of the secrets.
 * @throws {TypeError} `rawBody` is not a raw body, or the secret is empty (an empty string, an empty array or an empty
 *   string in the array).
 * @example
 * await verifyWebhookSignature(rawBody, request.headers.get('x-signature'), secret);
 * await archive.put(rawBody); // authentic, still unparsed
 */
export function verifyWebhookSignature(
  rawBody: RawBody,
  signature: string | null | undefined,
  secret: WebhookSecret,
  options?: VerifyWebhookOptions,
): Promise<void> {
  try {
    return check(normaliseRawBody(rawBody), signature, secret, options) ?? Promise.resolve();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Checks the signature: `undefined` when done synchronously (node path), else a promise (Web Crypto path). */
function check(
  body: string | Uint8Array,
  signature: string | null | undefined,
  secret: WebhookSecret,
  options: VerifyWebhookOptions | undefined,
): Promise<void> | undefined {
  // One secret, the common case, needs no list (toSecretList checks the rest, with messages that name the fault).
  const secrets = typeof secret === 'string' && secret !== '' ? secret : toSecretList(secret);
  return checkSignature(body, signature, secrets, resolveCryptoPath(options?.crypto));
}
