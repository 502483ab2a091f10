import { ConnectionError, isAlreadyGenerated, PortalError, ServiceClient, TimeoutError } from 'invoicing-service-sdk';
import { buildEwayBillModel } from 'invoicing-service-sdk/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TRANSPORTS, type Transport } from './transports.js';

describe.each(TRANSPORTS)('recovering from a lost answer with ServiceClient %s', (_label, open) => {
  let transport: Transport;
  beforeAll(async () => {
    transport = await open();
  });
  afterAll(() => transport.close());
  afterEach(() => {
    transport.service.close(); // ends any scripted delay still running
    transport.service.reset();
  });

  /** A client with a fresh key, so no two tests share the client's 1 request/second queue. */
  function client(options: { timeout?: number } = {}) {
    return new ServiceClient({ apiKey: transport.service.addApiKey(), baseUrl: transport.baseUrl, ...options });
  }

  it('rejects with a ConnectionError that may have succeeded; the retry is "already generated"', async () => {
    const { service } = transport;
    const hashId = service.addDocument();
    const c = client();
    service.failNext({ loseAnswer: true });

    const first = await c.createEwayBill(hashId, buildEwayBillModel()).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(ConnectionError);
    expect((first as ConnectionError).mayHaveSucceeded).toBe(true);
    const number = service.getDocument(hashId)?.ewayBill?.number;
    expect(number).toMatch(/^\d{12}$/);
    // The default client does not resend a request the service may have acted on.
    expect(service.requests).toHaveLength(1);

    const second = await c.createEwayBill(hashId, buildEwayBillModel()).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(PortalError);
    expect((second as PortalError).portalCode).toBe(604);
    expect(isAlreadyGenerated(second)).toBe(true);
    expect(service.getDocument(hashId)?.ewayBill?.number).toBe(number);
  }, 15_000);

  it('rejects with a TimeoutError that may have succeeded when delayMs outlasts the timeout; the bill exists', async () => {
    const { service } = transport;
    const hashId = service.addDocument();
    const c = client({ timeout: 1_500 });
    service.failNext({ loseAnswer: true, delayMs: 60_000 });

    const first = await c.createEwayBill(hashId, buildEwayBillModel()).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(TimeoutError);
    expect((first as TimeoutError).mayHaveSucceeded).toBe(true);
    expect(service.getDocument(hashId)?.ewayBill?.number).toMatch(/^\d{12}$/);

    const second = await c.createEwayBill(hashId, buildEwayBillModel()).catch((e: unknown) => e);
    expect(isAlreadyGenerated(second)).toBe(true);
    expect(service.requests.filter((r) => r.docHashId === hashId)).toHaveLength(2);
  }, 15_000);
});
