// Hono: receive webhook events on POST /webhooks (Node, Bun, Deno or Cloudflare Workers).
import { Hono } from 'hono';
import {
  createWebhookHandler,
  type FetchWebhookHandler,
  verifyWebhook,
  WebhookPayloadError,
  WebhookVerificationError,
} from 'invoicing-service-sdk/webhooks';

type Env = { Bindings: { WEBHOOK_SECRET: string } };

const app = new Hono<Env>();

// Made once, on the first request (Workers give the secret per request), so its dedupe store is kept.
// The default store is per isolate: on Workers, prefer a store over KV, D1 or a Durable Object.
let handler: FetchWebhookHandler | undefined;

// With the ready-made handler: pass Hono's raw Request, whose body has not been read.
app.post('/webhooks', (c) => {
  handler ??= createWebhookHandler({
    secret: c.env.WEBHOOK_SECRET,
    // Hand slow work to a queue (Cloudflare Queues, or your job runner) and return.
    onEvent: (event) =>
      console.log('event', event.event_id, event.known ? event.event_type : event.received_event_type),
  });
  return handler(c.req.raw);
});

// Or by hand with verifyWebhook: the raw text, never c.req.json().
app.post('/webhooks/manual', async (c) => {
  try {
    const event = await verifyWebhook(await c.req.text(), c.req.header('x-signature'), c.env.WEBHOOK_SECRET);
    console.log('event', event.event_id);
    return c.json({ ok: true });
  } catch (error) {
    if (error instanceof WebhookVerificationError) return c.json({ ok: false }, 401);
    if (error instanceof WebhookPayloadError) return c.json({ ok: false }, 400);
    throw error;
  }
});

export default app;
