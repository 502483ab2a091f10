// Node's http module, no framework.
// Run it in this repository after `npm run build` (npx picks the Node 24 of node_modules, which runs .ts files):
//   WEBHOOK_SECRET=... [WEBHOOK_SECRET_PREVIOUS=...] npx node examples/webhooks/node-http.ts
import { createServer } from 'node:http';
import { checkWebhookUrl, createNodeWebhookHandler } from 'invoicing-service-sdk/webhooks';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error('Set WEBHOOK_SECRET to the webhook secret from the dashboard.');
// Set only while the secret is rotated: deliveries signed with the old secret are then accepted too.
const previous = process.env.WEBHOOK_SECRET_PREVIOUS;

// On a configuration screen, check the URL a user types before saving it.
for (const reason of checkWebhookUrl('https://127.1/hooks').reasons) console.log(reason.code, reason.message);

createServer(
  createNodeWebhookHandler({
    secret: previous ? [secret, previous] : secret,
    onEvent: (event) =>
      console.log('event', event.event_id, event.known ? event.event_type : event.received_event_type),
  }),
).listen(3000);
