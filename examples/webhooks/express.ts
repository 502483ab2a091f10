// Express: receive webhook events on POST /webhooks.
// Run it in this repository after `npm run build` (npx picks the Node 24 of node_modules, which runs .ts files):
//   WEBHOOK_SECRET=... npx node examples/webhooks/express.ts
import express from 'express';
import { createNodeWebhookHandler, type WebhookEvent } from 'invoicing-service-sdk/webhooks';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error('Set WEBHOOK_SECRET to the webhook secret from the dashboard.');

const app = express();

// Put slow work on a queue: the service waits at most 10 seconds for the answer.
const queue: WebhookEvent[] = [];

// The webhook route reads the raw body itself, so it is registered before any express.json().
// (Alternatively: app.post('/webhooks', express.raw({ type: 'application/json' }), handler).)
app.post(
  '/webhooks',
  createNodeWebhookHandler({
    secret,
    onEvent: (event) => {
      queue.push(event);
    },
  }),
);

// JSON parsing for the rest of the app comes after the webhook route.
app.use(express.json());

app.listen(3000, () => console.log('Listening on http://localhost:3000/webhooks'));
