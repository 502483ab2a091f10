import { buildEwayBillModel, createMockService } from 'invoicing-service-sdk/testing';
import { describe, expect, it } from 'vitest';
import { post } from './helpers.js';

const model = buildEwayBillModel();

describe('documents and the e-way bill portal in the mock service', () => {
  it('answers 400 INVALID_HASH_ID to an unknown document', async () => {
    const service = createMockService();
    const response = await post(service, 'doc_missing', model);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ success: false, error_code: 'INVALID_HASH_ID' });
  });

  it('generates an e-way bill for a known document and keeps it', async () => {
    const service = createMockService();
    const hashId = service.addDocument('INV-2026-0001');
    expect(hashId).toBe('INV-2026-0001');
    const response = await post(service, hashId, model);
    expect(response.status).toBe(200);
    const { ewayBill } = service.getDocument(hashId) ?? {};
    expect(ewayBill?.number).toMatch(/^[1-9]\d{11}$/);
    expect(ewayBill?.model).toEqual(model);
    expect((await response.json()).message).toContain(ewayBill?.number);
  });

  it('decodes the hash id from the path', async () => {
    const service = createMockService();
    const hashId = service.addDocument('inv 1/ä');
    expect((await post(service, hashId, model)).status).toBe(200);
  });

  it('answers PORTAL_ERROR_604 to a second e-way bill for the same document', async () => {
    const service = createMockService({ rateLimit: false });
    const hashId = service.addDocument();
    expect((await post(service, hashId, model)).status).toBe(200);
    const first = service.getDocument(hashId)?.ewayBill?.number;
    const response = await post(service, hashId, model);
    expect(response.status).toBe(400);
    const json = await response.json();
    expect(json.error_code).toBe('PORTAL_ERROR_604');
    expect(json.message).toMatch(/already generated/);
    expect(service.getDocument(hashId)?.ewayBill?.number).toBe(first);
  });

  it('answers PORTAL_ERROR_111 when the company is not connected to the portal', async () => {
    const service = createMockService({ portalConnected: false });
    const hashId = service.addDocument();
    const response = await post(service, hashId, model);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error_code: 'PORTAL_ERROR_111',
      message: expect.stringMatching(/not connected/),
    });
    expect(service.getDocument(hashId)?.ewayBill).toBeUndefined();
  });

  it('generates once the company is connected', async () => {
    const service = createMockService({ portalConnected: false, rateLimit: false });
    const hashId = service.addDocument();
    expect((await post(service, hashId, model)).status).toBe(400);
    service.setPortalConnected(true);
    expect((await post(service, hashId, model)).status).toBe(200);
  });

  it('keeps the portal connection per company', async () => {
    const service = createMockService();
    const offline = service.addCompany({ portalConnected: false });
    const doc = service.addDocument(undefined, { companyId: offline.companyId });
    expect((await (await post(service, doc, model, { key: offline.apiKey })).json()).error_code).toBe(
      'PORTAL_ERROR_111',
    );
    expect((await post(service, service.addDocument(), model)).status).toBe(200);
  });

  it('answers a scripted portal error PORTAL_ERROR_{n} once, then generates', async () => {
    const service = createMockService({ rateLimit: false });
    const hashId = service.addDocument();
    service.failNext({ portalError: 238, message: 'Invalid auth token' });
    const response = await post(service, hashId, model);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      success: false,
      error_code: 'PORTAL_ERROR_238',
      message: 'Invalid auth token',
      errors: {},
    });
    expect(service.getDocument(hashId)?.ewayBill).toBeUndefined();
    expect((await post(service, hashId, model)).status).toBe(200);
  });

  it("words a scripted portal error with the portal's published description", async () => {
    const service = createMockService();
    service.failNext({ portalError: 238 });
    const json = await (await post(service, service.addDocument(), model)).json();
    expect(json).toMatchObject({
      error_code: 'PORTAL_ERROR_238',
      message: expect.stringContaining('Invalid auth token'),
    });
  });

  it('refuses a document hash id that is already taken', () => {
    const service = createMockService();
    service.addDocument('dup');
    expect(() => service.addDocument('dup')).toThrow(/already exists/);
    expect(() => service.addDocument('x', { companyId: 'nope' })).toThrow(/no company/);
  });

  it('lists documents per company', () => {
    const service = createMockService();
    const other = service.addCompany({ id: 'acme' });
    service.addDocument('a');
    service.addDocument('b', { companyId: other.companyId });
    expect(service.documents(service.companyId).map((d) => d.hashId)).toEqual(['a']);
    expect(service.documents().map((d) => `${d.companyId}/${d.hashId}`)).toEqual(['company_1/a', 'acme/b']);
  });

  it('answers 404 NOT_FOUND outside the e-way bill endpoint and 405 to another method on it', async () => {
    const service = createMockService();
    const notFound = await service.handle(new Request(`${service.baseUrl}/v2/customer/list`));
    expect(notFound.status).toBe(404);
    expect((await notFound.json()).error_code).toBe('NOT_FOUND');
    const wrongMethod = await post(service, 'x', undefined, { method: 'GET' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
  });
});
