// Issue 18.2: the testing kit serves the whole flow: POST /v2/doc (a document, then its signed `document` event),
// GET /v2/product/list, and the e-way bill, under one per-key rate limit. Against the mock on a real loopback socket
// with a real webhook receiver, and under msw.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceClient } from 'invoicing-service-sdk';
import { createMockService, MOCK_PRODUCTS, startMockServer } from 'invoicing-service-sdk/testing';
import { createNodeWebhookHandler, type WebhookEvent } from 'invoicing-service-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDocumentFirst } from '../../examples/create-document-first.js';
import { useMswServer } from '../helpers/msw.js';
import { type Send, stampingFetch } from '../helpers/send-times.js';
import { expectSpacedAt } from '../helpers/spacing.js';

const SECRET = 'whsec_whole_flow_word';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function receiver(): Promise<{ url: string; events: WebhookEvent[] }> {
  const events: WebhookEvent[] = [];
  const handler = createNodeWebhookHandler({ secret: SECRET, onEvent: (event) => void events.push(event) });
  const server: Server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, events };
}

describe('the whole flow against the mock server', () => {
  it('creates a document, generates its e-way bill, receives its signed event, lists products', async () => {
    const hooks = await receiver();
    // The mock runs in this test's own process, so it stamps a request late when this process is busy (a full suite on
    // 2 cores): a first request stamped late shortens the gap to the next, and a mock that enforced the limit would
    // answer that one 429 whatever the SDK did. So the mock does not enforce it here (rateLimit: false), and the test
    // checks what the SDK decided: its send times. The mock stamps arrivals on the same clock (`now`: Date.now()).
    const mock = await startMockServer({
      webhook: { url: hooks.url, secret: SECRET },
      rateLimit: false,
      now: () => Date.now(),
    });
    closers.push(() => mock.close());
    const sends: Send[] = [];
    const client = new ServiceClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: stampingFetch(sends) });
    const result = await createDocumentFirst(client);
    expect(result.hashId).toMatch(/^doc_/);
    expect(result.ewayBillNumber).toMatch(/^\d{12}$/);
    expect(result.products).toBe(MOCK_PRODUCTS.length);
    expect(mock.service.getDocument(result.hashId)?.ewayBill?.number).toBe(result.ewayBillNumber);
    await vi.waitFor(() => expect(hooks.events).toHaveLength(1), { timeout: 5000, interval: 20 });
    expect(hooks.events[0]).toMatchObject({
      known: true,
      event_type: 'document',
      data: { hash_id: result.hashId, serial_number: 'INV-2026-0042', document_type: 'invoice' },
    });
    // One budget for every endpoint of the key: the three calls were sent a second apart, none arriving before it was
    // sent.
    const arrivals = mock.service.arrivalsOf(mock.apiKey);
    expect(arrivals).toHaveLength(3);
    expectSpacedAt(
      sends.map((send) => send.at),
      arrivals,
      1000,
    );
  }, 30_000);

  it('counts every endpoint of a key in one rate limit: a document then an e-way bill within 1 s is a 429', async () => {
    const mock = await startMockServer();
    closers.push(() => mock.close());
    const headers = { authorization: `Bearer ${mock.apiKey}`, 'content-type': 'application/json' };
    const first = await fetch(`${mock.baseUrl}/v2/doc`, { method: 'POST', headers, body: '{}' });
    expect(first.status).toBe(200);
    const { hash_id } = (await first.json()) as { hash_id: string };
    const second = await fetch(`${mock.baseUrl}/v2/ewaybill/${hash_id}`, { method: 'POST', headers, body: '{}' });
    expect(second.status).toBe(429);
    const products = await fetch(`${mock.baseUrl}/v2/product/list`, { headers });
    expect(products.status).toBe(429);
  });

  it('refuses an unknown key, a wrong method, and a body that is not an object', async () => {
    const mock = await startMockServer({ rateLimit: false });
    closers.push(() => mock.close());
    const good = { authorization: `Bearer ${mock.apiKey}`, 'content-type': 'application/json' };
    const unknown = await fetch(`${mock.baseUrl}/v2/doc`, {
      method: 'POST',
      headers: { ...good, authorization: 'Bearer a.b.c' },
      body: '{}',
    });
    expect(unknown.status).toBe(401);
    expect((await fetch(`${mock.baseUrl}/v2/doc`, { headers: good })).status).toBe(405);
    expect((await fetch(`${mock.baseUrl}/v2/product/list`, { method: 'POST', headers: good })).status).toBe(405);
    const notObject = await fetch(`${mock.baseUrl}/v2/doc`, { method: 'POST', headers: good, body: '[1]' });
    expect(notObject.status).toBe(400);
  });
});

describe('the whole flow under msw', () => {
  const server = useMswServer();
  it('serves the same endpoints through the msw handlers', async () => {
    const service = createMockService({ rateLimit: false });
    server.use(...service.handlers);
    const client = new ServiceClient({ apiKey: service.apiKey, baseUrl: service.baseUrl });
    const result = await createDocumentFirst(client);
    expect(service.getDocument(result.hashId)?.ewayBill?.number).toBe(result.ewayBillNumber);
    expect(result.products).toBe(MOCK_PRODUCTS.length);
  }, 30_000);
});
