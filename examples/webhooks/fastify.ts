// Fastify: receive webhook events on POST /webhooks.
// Run it in this repository after `npm run build` (npx picks the Node 24 of node_modules, which runs .ts files):
//   WEBHOOK_SECRET=... npx node examples/webhooks/fastify.ts
import Fastify from 'fastify';
import { createNodeWebhookHandler } from 'invoicing-service-sdk/webhooks';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error('Set WEBHOOK_SECRET to the webhook secret from the dashboard.');

const app = Fastify({ logger: true });

// An encapsulated plugin: only the webhook route gets the body as a Buffer; other routes keep JSON parsing.
await app.register(async (webhooks) => {
  webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, body);
  });
  webhooks.post(
    '/webhooks',
    createNodeWebhookHandler({
      secret,
      onEvent: async (event) => {
        if (event.event_type === 'unknown') {
          // A type newer than this SDK, or a known type whose data drifted from the spec (see event.issues).
          const { received_event_type: type, issues } = event;
          return app.log.warn({ type, issues, data: event.data }, 'an event this SDK cannot type; stored for review');
        }
        if (event.event_type === 'inventory') {
          app.log.info({ product: event.data.service_product_id, qty: event.data.qty }, `stock ${event.data.movement}`);
        } else {
          app.log.info({ document: event.data.hash_id }, event.data.message);
        }
      },
    }),
  );
});

await app.listen({ port: 3000 });
