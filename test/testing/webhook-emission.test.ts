import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMockService } from 'invoicing-service-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';

const SECRET = 'whsec_test_only_secret';

interface Received {
  headers: IncomingMessage['headers'];
  method: string | undefined;
  raw: Buffer;
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A receiver on 127.0.0.1 that keeps what arrived and answers `status` (after `delayMs`; never, if infinite). */
async function receiver(status = 200, delayMs = 0): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, method: req.method, raw: Buffer.concat(chunks) });
      if (Number.isFinite(delayMs)) setTimeout(() => res.writeHead(status).end(), delayMs);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received };
}

function signatureMatches(raw: Buffer, header: string | string[] | undefined): boolean {
  const expected = createHmac('sha256', SECRET).update(raw).digest();
  const given = Buffer.from(String(header), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('webhook emission by the mock service', () => {
  it('posts a document event with the spec envelope, Content-Type and an X-Signature over the raw body', async () => {
    const { url, received } = await receiver();
    const service = createMockService({ webhook: { url, secret: SECRET } });
    const delivery = await service.sendDocumentEvent({ data: { hash_id: 'inv_42', message: 'Document created' } });
    expect(delivery.status).toBe(200);
    const [request] = received;
    expect(request?.method).toBe('POST');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(signatureMatches(request?.raw ?? Buffer.alloc(0), request?.headers['x-signature'])).toBe(true);
    const body = JSON.parse(request?.raw.toString('utf8') ?? '');
    expect(body).toEqual({
      event_id: delivery.eventId,
      event_type: 'document',
      data: {
        document_type: 'invoice',
        serial_number: expect.any(String),
        hash_id: 'inv_42',
        message: 'Document created',
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/),
      },
    });
    expect(body.event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(request?.raw.toString('utf8')).toBe(delivery.body);
  });

  it('posts an inventory event to a target passed to the call', async () => {
    const { url, received } = await receiver();
    const service = createMockService();
    const delivery = await service.sendInventoryEvent(
      { data: { partner_product_id: -1, qty: 2.5, movement: 'out' } },
      { url, secret: SECRET },
    );
    const body = JSON.parse(received[0]?.raw.toString('utf8') ?? '');
    expect(body.event_type).toBe('inventory');
    expect(body.data).toMatchObject({
      partner_product_id: -1,
      qty: 2.5,
      movement: 'out',
      service_product_id: expect.any(Number),
    });
    expect(signatureMatches(received[0]?.raw ?? Buffer.alloc(0), delivery.signature)).toBe(true);
  });

  it('emits any event as given, byte for byte, and resolves with the receiver status', async () => {
    const { url, received } = await receiver(401);
    const service = createMockService({ webhook: { url, secret: SECRET } });
    const event = { event_id: 'evt-1', event_type: 'future_type', data: { note: 'ünïcode ✓' } };
    const delivery = await service.emitWebhook(event);
    expect(delivery.status).toBe(401);
    expect(received[0]?.raw.toString('utf8')).toBe(JSON.stringify(event));
    expect(signatureMatches(received[0]?.raw ?? Buffer.alloc(0), received[0]?.headers['x-signature'])).toBe(true);
  });

  it('gives up on a receiver slower than timeoutMs with an error naming the receiver', async () => {
    const { url } = await receiver(200, Number.POSITIVE_INFINITY);
    const service = createMockService({ webhook: { url, secret: SECRET, timeoutMs: 100 } });
    await expect(service.sendDocumentEvent()).rejects.toThrow(/did not answer within 100 ms/);
  });

  it('refuses to emit without a target, or with a bad one, never showing the secret', async () => {
    const service = createMockService();
    await expect(service.sendDocumentEvent()).rejects.toThrow(/no webhook target/);
    await expect(
      service.emitWebhook({ event_id: 'e', event_type: 'document', data: {} }, { url: 'nope', secret: SECRET }),
    ).rejects.toThrow(/absolute http\(s\) URL/);
    const error = await service
      .sendDocumentEvent(undefined, { url: 'http://127.0.0.1:9/', secret: '' })
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(String(error)).not.toContain(SECRET);
  });
});
