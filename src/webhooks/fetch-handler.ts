import { answerDelivery, type DeliveryAnswer, refuse } from './delivery.js';
import { resolveHandlerOptions, type WebhookHandlerOptions } from './handler-options.js';
import { RAW_BODY_HELP } from './raw-body.js';
import { announcesTooLarge, bodyTimedOut, readLimited, TIMED_OUT, TOO_LARGE } from './read-body.js';

/** A webhook endpoint for Fetch-style runtimes: takes the `Request`, resolves to the `Response`. */
export type FetchWebhookHandler = (request: Request) => Promise<Response>;

function toResponse(answer: DeliveryAnswer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

async function* chunksOf(reader: ReadableStreamDefaultReader<Uint8Array>): AsyncGenerator<Uint8Array> {
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Reached early when the body is too large: stop the upload instead of buffering it.
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * Makes a webhook endpoint for Next.js route handlers, Hono, Bun.serve, Deno.serve and Cloudflare Workers.
 * It reads the raw body itself, verifies the signature, validates the envelope, drops duplicates by `event_id`,
 * and answers: 200 after `onEvent` resolved (or for a duplicate), 400 bad payload, 401 bad signature,
 * 405 not POST, 408 body not in full within `bodyTimeoutMs`, 409 same event being processed, 413 body over
 * `maxBodyBytes`, 500 when `onEvent` throws.
 *
 * @throws {TypeError} When an option is wrong (checked here, not at the first request).
 * @example
 * // app/api/webhooks/route.ts (Next.js)
 * const handler = createWebhookHandler({ secret: process.env.WEBHOOK_SECRET!, onEvent: async (event) => queue.add(event) });
 * export async function POST(request: Request) { return handler(request); }
 */
export function createWebhookHandler(options: WebhookHandlerOptions): FetchWebhookHandler {
  const resolved = resolveHandlerOptions(options);
  return async (request) => {
    if (request.method !== 'POST') {
      const cause = new Error(`Webhook deliveries are POST requests; got ${request.method}.`);
      return toResponse(refuse(resolved, 405, 'METHOD_NOT_ALLOWED', cause, { headers: { allow: 'POST' } }));
    }
    const tooLarge = new Error(`The body is larger than maxBodyBytes (${resolved.maxBodyBytes} bytes).`);
    if (announcesTooLarge(request.headers.get('content-length'), resolved.maxBodyBytes)) {
      return toResponse(refuse(resolved, 413, 'PAYLOAD_TOO_LARGE', tooLarge));
    }
    if (request.bodyUsed) {
      const cause = new TypeError(`The request body was already read before the webhook handler. ${RAW_BODY_HELP}`);
      return toResponse(refuse(resolved, 500, '', cause));
    }
    let body: Uint8Array | typeof TOO_LARGE | typeof TIMED_OUT;
    try {
      if (request.body === null) {
        body = new Uint8Array();
      } else {
        const reader = request.body.getReader();
        body = await readLimited(chunksOf(reader), resolved.maxBodyBytes, {
          timeoutMs: resolved.bodyTimeoutMs,
          // Cancelling ends the pending read, so the generator finishes and the upload is stopped.
          onTimeout: () => void reader.cancel().catch(() => undefined),
        });
      }
    } catch (error) {
      return toResponse(refuse(resolved, 500, '', error));
    }
    if (body === TOO_LARGE) return toResponse(refuse(resolved, 413, 'PAYLOAD_TOO_LARGE', tooLarge));
    if (body === TIMED_OUT) {
      const cause = bodyTimedOut(resolved.bodyTimeoutMs);
      return toResponse(refuse(resolved, 408, 'BODY_TIMEOUT', cause, { headers: { connection: 'close' } }));
    }
    return toResponse(await answerDelivery(resolved, body, request.headers.get('x-signature')));
  };
}
