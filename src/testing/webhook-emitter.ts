import { signWebhook } from '../webhooks/index.js';
import type { WebhookDelivery, WebhookTarget } from './types.js';

/** The spec's answer time for receivers. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/** Checks a webhook target. @throws {TypeError} naming the bad field (never showing the secret). */
export function checkWebhookTarget(target: WebhookTarget | undefined, caller: string): WebhookTarget {
  if (target === undefined) {
    throw new TypeError(
      `${caller}: no webhook target; pass { url, secret } or set the webhook option of createMockService`,
    );
  }
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    throw new TypeError(`${caller}: webhook url must be an absolute http(s) URL; got '${String(target.url)}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`${caller}: webhook url must use http or https; got '${url.protocol}'`);
  }
  if (typeof target.secret !== 'string' || target.secret === '') {
    throw new TypeError(`${caller}: webhook secret must be a non-empty string`);
  }
  const timeout = target.timeoutMs;
  if (timeout !== undefined && (!Number.isFinite(timeout) || timeout <= 0)) {
    throw new TypeError(`${caller}: timeoutMs must be a positive number of milliseconds; got ${String(timeout)}`);
  }
  return target;
}

/**
 * POSTs an event the way the service delivers webhooks (spec, Events): the JSON body, `Content-Type: application/json`
 * and `X-Signature`, the hex HMAC-SHA256 of the exact body keyed with the secret.
 * Resolves with the receiver's status whatever it is.
 * @param signal Stops the delivery early (the emulator's close()); it is joined to the `timeoutMs` timeout.
 * @throws {Error} when the receiver cannot be reached, does not answer within `timeoutMs`, or `signal` aborted first
 *   (the cause says which).
 */
export async function deliverWebhook(
  event: { event_id: string; event_type: string; data: unknown },
  target: WebhookTarget,
  signal?: AbortSignal,
): Promise<WebhookDelivery> {
  const body = JSON.stringify(event);
  const signature = signWebhook(body, target.secret);
  const timeoutMs = target.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const send = target.fetch ?? globalThis.fetch;
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const response = await send(target.url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-signature': signature },
      signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
    });
    await response.body?.cancel().catch(() => {});
    return { status: response.status, eventId: event.event_id, body, signature };
  } catch (error) {
    const where = new URL(target.url).origin;
    const why = signal?.aborted
      ? `The webhook delivery to ${where} was stopped: the mock service closed`
      : timeout.aborted
        ? `The webhook receiver at ${where} did not answer within ${timeoutMs} ms`
        : `Could not deliver the webhook to ${where}: ${error instanceof Error ? error.message : String(error)}`;
    throw new Error(why, { cause: error });
  }
}
