import { createHash, createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildEwayBillModel, type MockServer, startMockServer } from 'invoicing-service-sdk/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openEvents } from './event-stream.js';

// A key shaped like the service's keys (three dot-separated parts) that reads as words, so a leak is easy to find.
const KEY = 'tamarind.mangosteen.jackfruit';
const KEY_HASH = createHash('sha256').update(KEY).digest('hex').slice(0, 12);
const SECRET = 'dashboard-test-secret';

/** Parses every `event: name` message of a stream's text. */
function messages(text: string): { event: string; data: unknown }[] {
  return [...text.matchAll(/event: (\w+)\ndata: (.*)\n\n/g)].map((m) => ({
    event: m[1] as string,
    data: JSON.parse(m[2] as string),
  }));
}

function post(mock: MockServer, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(new URL(path, mock.dashboardUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

function createBill(mock: MockServer, hashId: string, extraBody: Record<string, unknown> = {}) {
  return fetch(`${mock.baseUrl}/v2/ewaybill/${hashId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...buildEwayBillModel(), ...extraBody }),
  });
}

describe('the mock dashboard (HTTP endpoints)', () => {
  let mock: MockServer;
  let receiver: Server;
  let receiverUrl: string;
  const received: { body: string; signature: string | undefined }[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({
          body: Buffer.concat(chunks).toString('utf8'),
          signature: req.headers['x-signature'] as string,
        });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    mock = await startMockServer({
      apiKey: KEY,
      rateLimit: false,
      webhook: { url: `${receiverUrl}?token=abc`, secret: SECRET, timeoutMs: 5_000 },
    });
  });

  afterEach(() => {
    mock.service.reset();
    received.length = 0;
  });

  afterAll(async () => {
    await mock?.close();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  });

  it('gives the dashboard URL (the server root) and serves a self-contained page there', async () => {
    expect(mock.dashboardUrl).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/$/);
    const response = await fetch(mock.dashboardUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const html = await response.text();
    for (const heading of ['Requests', 'Rate limit', 'Documents and bills', 'Webhooks', 'Faults']) {
      expect(html).toContain(`>${heading}</h2>`);
    }
    expect(html).toContain('<caption>');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=["']?https?:/); // nothing from the network
    expect(html).not.toContain(KEY);
  });

  it('leaves the API under the prefix as it was: other paths are still 404 NOT_FOUND', async () => {
    const response = await fetch(`${mock.baseUrl}/v2/nothing`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error_code: string }).error_code).toBe('NOT_FOUND');
    const unknown = await fetch(new URL('/_dashboard/nothing', mock.dashboardUrl));
    expect(unknown.status).toBe(404);
  });

  it('streams a snapshot, then each request with the key as a short hash and never the key', async () => {
    const events = await openEvents(new URL('/_dashboard/events', mock.dashboardUrl).href);
    try {
      expect(events.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await events.waitFor(/event: snapshot\n/);
      const hashId = mock.service.addDocument('INV-DASH-1');
      // The key is also in the body: the row's request text must show it redacted.
      const answer = await createBill(mock, hashId, { transporter_name: `Roadways ${KEY}` });
      expect(answer.status).toBe(200);
      await events.waitFor(/event: request\n/);
      await events.waitFor(/event: state\ndata: .*INV-DASH-1","companyId":"[^"]+","ewayBillNumber":"\d{12}"/);
      const row = messages(events.text).find((m) => m.event === 'request')?.data as Record<string, unknown>;
      expect(row).toMatchObject({
        keyHash: KEY_HASH,
        keyId: 'key_1',
        method: 'POST',
        path: '/api/partner/v2/ewaybill/INV-DASH-1',
        docHashId: 'INV-DASH-1',
        status: 200,
      });
      expect(row.request).toContain('authorization: Bearer [redacted]');
      expect(row.request).toContain('"transporter_name": "Roadways [redacted]"');
      expect(row.answer).toMatch(/^HTTP 200\n/);
      expect(events.text).not.toContain(KEY);
    } finally {
      events.close();
    }
  });

  it('describes a portal code with its meaning, and the state endpoint lists rows and documents', async () => {
    const hashId = mock.service.addDocument('INV-DASH-2');
    expect((await createBill(mock, hashId)).status).toBe(200);
    expect((await createBill(mock, hashId)).status).toBe(400); // a second bill: PORTAL_ERROR_604
    const state = (await (await fetch(new URL('/_dashboard/state', mock.dashboardUrl))).json()) as {
      requests: Record<string, unknown>[];
      documents: { hashId: string; ewayBillNumber?: string }[];
    };
    expect(state.requests).toHaveLength(2);
    expect(state.requests[1]).toMatchObject({ status: 400, errorCode: 'PORTAL_ERROR_604', portalCode: 604 });
    expect(state.requests[1]?.portalMeaning).toMatch(/already generated/i);
    expect(state.documents).toEqual([
      expect.objectContaining({ hashId: 'INV-DASH-2', ewayBillNumber: expect.stringMatching(/^\d{12}$/) }),
    ]);
    expect(JSON.stringify(state)).not.toContain(KEY);
  });

  it('fault switches stay on until switched off: 500s, portal disconnected, lose the answer', async () => {
    let response = await post(mock, '/_dashboard/faults', { answer: 'serverError' });
    expect(await response.json()).toMatchObject({ answer: 'serverError', portalDisconnected: false, slowMs: 0 });
    expect((await createBill(mock, mock.service.addDocument())).status).toBe(500);
    expect((await createBill(mock, mock.service.addDocument())).status).toBe(500);

    response = await post(mock, '/_dashboard/faults', { answer: 'normal', portalDisconnected: true });
    expect(await response.json()).toMatchObject({ answer: 'normal', portalDisconnected: true });
    const disconnected = await createBill(mock, mock.service.addDocument());
    expect(((await disconnected.json()) as { error_code: string }).error_code).toBe('PORTAL_ERROR_111');

    await post(mock, '/_dashboard/faults', { answer: 'loseAnswer', portalDisconnected: false });
    const lost = mock.service.addDocument();
    await expect(createBill(mock, lost)).rejects.toThrow(TypeError);
    expect(mock.service.getDocument(lost)?.ewayBill).toBeDefined(); // generated, then the answer was dropped

    await post(mock, '/_dashboard/faults', { answer: 'normal', slowMs: 300 });
    const started = Date.now();
    expect((await createBill(mock, mock.service.addDocument())).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);

    await post(mock, '/_dashboard/faults', { answer: 'normal', slowMs: 0 });
    expect((await createBill(mock, mock.service.addDocument())).status).toBe(200);
  });

  it('refuses actions that are not JSON from its own page, and bad values', async () => {
    const form = await fetch(new URL('/_dashboard/faults', mock.dashboardUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'answer=drop',
    });
    expect(form.status).toBe(403);
    const elsewhere = await post(mock, '/_dashboard/faults', { answer: 'drop' }, { origin: 'http://evil.test' });
    expect(elsewhere.status).toBe(403);
    expect((await post(mock, '/_dashboard/faults', { answer: 'sometimes' })).status).toBe(400);
    expect((await post(mock, '/_dashboard/faults', { slowMs: -1 })).status).toBe(400);
    expect((await createBill(mock, mock.service.addDocument())).status).toBe(200); // nothing was switched on
  });

  it('sends a signed test event of each type, lists the delivery, and sends one again', async () => {
    for (const type of ['document', 'inventory']) {
      const response = await post(mock, '/_dashboard/webhooks/test', { type });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ eventType: type, status: 204, receiver: receiverUrl });
    }
    expect(received).toHaveLength(2);
    for (const { body, signature } of received) {
      expect(signature).toBe(createHmac('sha256', SECRET).update(body).digest('hex'));
    }
    const state = (await (await fetch(new URL('/_dashboard/state', mock.dashboardUrl))).json()) as {
      deliveries: { id: number; eventId: string }[];
      webhookReceiver: string;
    };
    expect(state.webhookReceiver).toBe(receiverUrl); // the query, which may hold a token, is not shown
    const first = state.deliveries[0] as { id: number; eventId: string };
    const again = await post(mock, '/_dashboard/webhooks/resend', { id: first.id });
    expect(await again.json()).toMatchObject({ eventId: first.eventId, status: 204 });
    expect(received).toHaveLength(3);
    expect(received[2]?.body).toBe(received[0]?.body); // the same event, byte for byte
    expect((await post(mock, '/_dashboard/webhooks/resend', { id: 9999 })).status).toBe(404);
    expect((await post(mock, '/_dashboard/webhooks/test', { type: 'refund' })).status).toBe(400);
  });
});

describe('the mock dashboard without a webhook receiver', () => {
  it('answers 409 to a test event and says so on the page data', async () => {
    const mock = await startMockServer();
    try {
      const response = await post(mock, '/_dashboard/webhooks/test', { type: 'document' });
      expect(response.status).toBe(409);
      const state = (await (await fetch(new URL('/_dashboard/state', mock.dashboardUrl))).json()) as object;
      expect(state).not.toHaveProperty('webhookReceiver');
    } finally {
      await mock.close();
    }
  });
});
