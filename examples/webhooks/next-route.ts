// Next.js (App Router): app/api/webhooks/route.ts. Also runs on the Edge runtime (Web Crypto is used there).
import { createWebhookHandler, parseWebhookTimestamp } from 'invoicing-service-sdk/webhooks';

const handler = createWebhookHandler({
  secret: process.env.WEBHOOK_SECRET ?? '',
  onEvent: async (event) => {
    if (event.event_type === 'document') {
      const at = parseWebhookTimestamp(event.data.timestamp); // read as IST (UTC+05:30)
      console.log(`document ${event.data.serial_number} (${event.data.document_type}) at ${at.toISOString()}`);
    }
  },
});

// The handler reads the raw body from the Request itself; do not call request.json() first.
export async function POST(request: Request): Promise<Response> {
  return handler(request);
}
