import { signWebhook } from '../../src/webhooks/index.js';

/** A webhook secret for tests; assertions check it never shows up in output. */
export const SECRET = 'whsec_test_9f8e7d6c5b4a3928_DO_NOT_LEAK';

export const DOCUMENT_EVENT = {
  event_id: '0b7a3c1e-4f2d-4e8a-9c6b-1a2b3c4d5e6f',
  event_type: 'document',
  data: {
    document_type: 'invoice',
    serial_number: 'INV-2026-0042',
    hash_id: 'doc_7Hk2Lm9Q',
    message: 'Document created',
    timestamp: '2026-11-21 10:30:00.123456',
  },
} as const;

export const INVENTORY_EVENT = {
  event_id: '5d9c2e7a-8b1f-4c3d-a2e6-0f9b8a7c6d5e',
  event_type: 'inventory',
  data: {
    service_product_id: 1234,
    partner_product_id: -1,
    product_name: 'Steel rod 12 mm',
    qty: 12.5,
    movement: 'out',
    timestamp: '2026-11-21 10:31:07.000001',
  },
} as const;

/** A body and its `X-Signature`, as the service would send them. */
export function signed(payload: unknown, secret = SECRET): { body: string; signature: string } {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return { body, signature: signWebhook(body, secret) };
}

/** A delivery as a Fetch `Request`. */
export function deliveryRequest(
  payload: unknown,
  init: { secret?: string; signature?: string | null; method?: string; url?: string } = {},
): Request {
  const { body, signature } = signed(payload, init.secret);
  const headers = new Headers({ 'content-type': 'application/json' });
  const sig = init.signature === undefined ? signature : init.signature;
  if (sig !== null) headers.set('x-signature', sig);
  const method = init.method ?? 'POST';
  return new Request(init.url ?? 'https://partner.example/webhooks', {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
  });
}

/** A copy of an event with another id. */
export function withId<T extends { event_id: string }>(event: T, id: string): T {
  return { ...event, event_id: id };
}

/** POSTs `payload` (an event, or its exact text) signed with `secret` to `url`; resolves when the answer was read. */
export async function deliverSigned(
  url: string,
  payload: unknown,
  secret: string,
): Promise<{ status: number; signature: string; body: string }> {
  const sent = signed(payload, secret);
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature': sent.signature },
    body: sent.body,
  });
  await response.arrayBuffer();
  return { status: response.status, ...sent };
}
