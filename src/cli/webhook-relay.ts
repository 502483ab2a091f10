import { buildDocumentEvent } from '../testing/event-fixtures.js';
import type { RecordedRequest, WebhookDelivery, WebhookTarget } from '../testing/types.js';
import { checkWebhookTarget, deliverWebhook } from '../testing/webhook-emitter.js';
import type { CliOutput } from './output.js';

/** The message of the document event the mock sends for a generated e-way bill. */
export const EWAY_BILL_EVENT_MESSAGE = 'E-way bill generated';

/**
 * Sends a signed `document` event to a receiver for each e-way bill the mock generates, so a partner can run their
 * webhook receiver against the mock. The spec shows no event for e-way bills; this one has the spec's document shape.
 * Failed deliveries are always reported; `quiet` silences the successful ones. `deliver` posts an event (the mock's
 * own, so the dashboard lists the delivery); it defaults to a plain `deliverWebhook`.
 */
export function createWebhookRelay(
  url: string,
  secret: string,
  io: CliOutput,
  quiet = false,
  deliver: (
    event: { event_id: string; event_type: string; data: unknown },
    target: WebhookTarget,
  ) => Promise<WebhookDelivery> = deliverWebhook,
) {
  const target = checkWebhookTarget({ url, secret }, 'mock-server');
  const pending = new Set<Promise<void>>();
  const parsed = new URL(url);
  return {
    /** The receiver, without its query (which could hold a token). */
    where: `${parsed.origin}${parsed.pathname}`,
    /** The receiver and secret, for the dashboard's test events and "send again". */
    target,
    onRequest(entry: RecordedRequest): void {
      if (entry.method !== 'POST' || entry.docHashId === undefined || entry.status !== 200) return;
      const event = buildDocumentEvent({
        data: { hash_id: entry.docHashId, serial_number: entry.docHashId, message: EWAY_BILL_EVENT_MESSAGE },
      });
      const sent = deliver(event, target).then(
        (delivery) => {
          if (!quiet) io.out(`[mock] webhook document ${event.event_id} for ${entry.docHashId} -> ${delivery.status}`);
        },
        (error: unknown) => io.err(`[mock] webhook for ${entry.docHashId} failed: ${(error as Error).message}`),
      );
      pending.add(sent);
      void sent.finally(() => pending.delete(sent));
    },
    /** Resolves when every delivery under way has ended (each is bounded by the 10 s receiver timeout). */
    async drain(): Promise<void> {
      await Promise.allSettled([...pending]);
    },
  };
}
