// Next.js (App Router): app/api/webhooks/route.ts. Also runs on the Edge runtime (Web Crypto is used there).
import { createWebhookHandler, parseWebhookTimestamp, type WebhookEvent } from 'invoicing-service-sdk/webhooks';

/** Where this example puts what it receives; your queue or database in a real receiver. */
export const received: { documents: string[]; inventory: string[]; review: WebhookEvent[] } = {
  documents: [],
  inventory: [],
  review: [],
};

/** The receiver's logic, apart from the framework, so a test can run it. */
export async function onEvent(event: WebhookEvent): Promise<void> {
  if (!event.known) {
    // A type newer than this SDK, or a known type whose data drifted from the spec: keep it for review (it is also
    // reported once through the handler's logger), routed by the type the service sent.
    received.review.push(event);
    return;
  }
  if (event.event_type === 'document') {
    const at = parseWebhookTimestamp(event.data.timestamp); // read as IST (UTC+05:30); never throws on a known event
    received.documents.push(`${event.data.serial_number} (${event.data.document_type}) at ${at.toISOString()}`);
  } else {
    received.inventory.push(`${event.data.movement} ${event.data.qty} of ${event.data.product_name}`);
  }
}

const handler = createWebhookHandler({ secret: process.env.WEBHOOK_SECRET ?? '', onEvent });

// The handler reads the raw body from the Request itself; do not call request.json() first.
export async function POST(request: Request): Promise<Response> {
  return handler(request);
}
