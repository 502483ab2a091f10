import {
  ApiError,
  ConnectionError,
  ForbiddenError,
  InvalidHashIdError,
  PortalError,
  RateLimitError,
  ServerError,
  ServiceClient,
  TimeoutError,
  UnauthorizedError,
} from 'invoicing-service-sdk';
import { buildEwayBillModel } from 'invoicing-service-sdk/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TRANSPORTS, type Transport } from './transports.js';

// Bypasses the client-side throttle, to make the mock's own rate limit answer.
const noLimiter = { acquire: async () => {} };

describe.each(TRANSPORTS)('ServiceClient against the mock service %s', (_label, open) => {
  let transport: Transport;
  beforeAll(async () => {
    transport = await open();
  });
  afterAll(() => transport.close());
  beforeEach(() => transport.service.reset());

  /** A client with a fresh key of the mock, so no two tests share a rate-limit queue. */
  function client(options: { key?: string; timeout?: number; maxRetries?: number } = {}) {
    const { key = transport.service.addApiKey(), ...rest } = options;
    return new ServiceClient({ apiKey: key, baseUrl: transport.baseUrl, ...rest });
  }

  it('creates an e-way bill and the mock records it', async () => {
    const { service } = transport;
    const hashId = service.addDocument();
    const result = await client().createEwayBill(hashId, buildEwayBillModel());
    const number = service.getDocument(hashId)?.ewayBill?.number;
    expect(number).toMatch(/^\d{12}$/);
    // The mock's message names the bill's number: the client reads it into ewayBillNumber.
    expect(result).toEqual({ success: true, message: expect.stringContaining(hashId), ewayBillNumber: number });
    const [entry] = service.requests;
    expect(entry?.headers.authorization).toBe('Bearer [redacted]');
    expect(entry?.headers['content-type']).toBe('application/json');
  });

  it('throws UnauthorizedError for an unknown key and ForbiddenError for a key without permission', async () => {
    const { service } = transport;
    const hashId = service.addDocument();
    await expect(
      client({ key: 'eyJ0.eyJ1.unknown' }).createEwayBill(hashId, buildEwayBillModel()),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const readOnly = client({ key: service.addApiKey({ canCreateEwayBill: false }) });
    await expect(readOnly.createEwayBill(hashId, buildEwayBillModel())).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('throws InvalidHashIdError for an unknown document', async () => {
    await expect(client().createEwayBill('doc_unknown', buildEwayBillModel())).rejects.toBeInstanceOf(
      InvalidHashIdError,
    );
  });

  it('throws PortalError 111 when the company is not connected to the portal', async () => {
    const { service } = transport;
    service.setPortalConnected(false);
    const error = await client()
      .createEwayBill(service.addDocument(), buildEwayBillModel())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PortalError);
    expect((error as PortalError).portalCode).toBe(111);
  });

  it('throws PortalError 604 when the e-way bill was already generated', async () => {
    const { service } = transport;
    const hashId = service.addDocument();
    const c = client();
    await c.createEwayBill(hashId, buildEwayBillModel());
    const error = await c.createEwayBill(hashId, buildEwayBillModel()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PortalError);
    expect((error as PortalError).portalCode).toBe(604);
  });

  it('throws RateLimitError with retryAfter when two clients of one key bypass the throttle', async () => {
    const { service } = transport;
    const key = service.addApiKey();
    const options = { apiKey: key, baseUrl: transport.baseUrl, rateLimiter: noLimiter, maxRetries: 0 };
    await new ServiceClient(options).createEwayBill(service.addDocument(), buildEwayBillModel());
    const error = await new ServiceClient(options)
      .createEwayBill(service.addDocument(), buildEwayBillModel())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(1);
  });

  it('spaces three calls of one key so the mock accepts all three', async () => {
    const { service } = transport;
    const key = service.addApiKey();
    const c = client({ key });
    const docs = [service.addDocument(), service.addDocument(), service.addDocument()];
    await Promise.all(docs.map((doc) => c.createEwayBill(doc, buildEwayBillModel())));
    expect(docs.every((doc) => service.getDocument(doc)?.ewayBill !== undefined)).toBe(true);
    expect(service.arrivalsOf(key).length).toBeGreaterThanOrEqual(3);
  });

  it('throws ServerError for a scripted 500 and for an HTML 502 page', async () => {
    const { service } = transport;
    service.failNext({ status: 500 });
    service.failNext({ html: true });
    const c = client();
    const first = await c.createEwayBill(service.addDocument(), buildEwayBillModel()).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(ServerError);
    const second = await c.createEwayBill(service.addDocument(), buildEwayBillModel()).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(ServerError);
    expect((second as ServerError).status).toBe(502);
    expect((second as ServerError).message).toMatch(/not JSON/);
  });

  it('throws ConnectionError for a dropped connection, and says the service may have acted on a cut answer', async () => {
    const { service } = transport;
    service.failNext({ drop: true });
    const c = client({ maxRetries: 0 });
    await expect(c.createEwayBill(service.addDocument(), buildEwayBillModel())).rejects.toBeInstanceOf(ConnectionError);
    service.failNext({ truncate: true });
    const cut = await c.createEwayBill(service.addDocument(), buildEwayBillModel()).catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(ConnectionError);
    expect((cut as ConnectionError).mayHaveSucceeded).toBe(true);
  });

  it('throws an ApiError that may have succeeded for an empty 200 answer', async () => {
    const { service } = transport;
    service.failNext({ emptyBody: true });
    const error = await client()
      .createEwayBill(service.addDocument(), buildEwayBillModel())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).mayHaveSucceeded).toBe(true);
  });

  it('throws TimeoutError when a scripted delay outlasts the timeout', async () => {
    const { service } = transport;
    service.failNext({ delayMs: 10_000 });
    const error = await client({ timeout: 150 })
      .createEwayBill(service.addDocument(), buildEwayBillModel())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    service.close();
  });
});
