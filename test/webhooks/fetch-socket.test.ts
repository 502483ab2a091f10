import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';
import { DOCUMENT_EVENT, INVENTORY_EVENT, SECRET, signed } from './fixtures.js';
import { fetchBridge, listen } from './servers.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function post(url: string, payload: unknown, signature?: string) {
  const sig = signed(payload);
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature': signature ?? sig.signature },
    body: sig.body,
  });
}

describe.each(['node', 'webcrypto'] as const)('the Fetch handler over a real socket (%s crypto)', (crypto) => {
  it('answers a signed delivery with 200 and a forged one with 401', async () => {
    const events: WebhookEvent[] = [];
    const handler = createWebhookHandler({ secret: SECRET, crypto, onEvent: (event) => void events.push(event) });
    const server = await listen(fetchBridge(handler));
    closers.push(server.close);
    expect((await post(server.url, DOCUMENT_EVENT)).status).toBe(200);
    expect((await post(server.url, INVENTORY_EVENT, 'd'.repeat(64))).status).toBe(401);
    expect(events.map((event) => event.event_id)).toEqual([DOCUMENT_EVENT.event_id]);
  });

  it('serves a Hono route that hands c.req.raw to the handler', async () => {
    const events: WebhookEvent[] = [];
    const handler = createWebhookHandler({ secret: SECRET, crypto, onEvent: (event) => void events.push(event) });
    const app = new Hono();
    app.post('/webhooks', (c) => handler(c.req.raw));
    const server = await listen(fetchBridge((request) => Promise.resolve(app.fetch(request))));
    closers.push(server.close);
    const first = await post(`${server.url}/webhooks`, INVENTORY_EVENT);
    const again = await post(`${server.url}/webhooks`, INVENTORY_EVENT);
    expect(first.status).toBe(200);
    expect(await again.json()).toEqual({ ok: true, duplicate: true });
    expect(events).toHaveLength(1);
  });
});
