import { buildEwayBillModel, createMockService } from 'invoicing-service-sdk/testing';
import { describe, expect, it } from 'vitest';
import { post } from './helpers.js';

const model = buildEwayBillModel();

describe('authentication of the mock service', () => {
  it('accepts the ready-made apiKey, which is shaped like a JWT', async () => {
    const service = createMockService();
    expect(service.apiKey).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const response = await post(service, service.addDocument(), model);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ success: true, message: expect.stringMatching(/generated/) });
  });

  it('generates a different random key for every service and every addApiKey', () => {
    const a = createMockService();
    const b = createMockService();
    expect(new Set([a.apiKey, b.apiKey, a.addApiKey(), a.addApiKey()]).size).toBe(4);
  });

  it.each([
    ['no Authorization header', { key: null }],
    ['a scheme other than Bearer', { authorization: `Basic dXNlcjpwYXNz` }],
    ['a Bearer token that is not JWT-shaped', { authorization: 'Bearer not-a-jwt' }],
    ['Bearer with nothing after it', { authorization: 'Bearer' }],
    ['an unknown JWT-shaped key', { key: 'aaa.bbb.ccc' }],
  ])('answers 401 UNAUTHORIZED to %s', async (_label, options) => {
    const service = createMockService();
    const response = await post(service, service.addDocument(), model, options);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      success: false,
      error_code: 'UNAUTHORIZED',
      message: expect.any(String),
      errors: {},
    });
  });

  it('answers 401 UNAUTHORIZED to a key after it was revoked (regenerated in the dashboard)', async () => {
    const service = createMockService();
    const key = service.addApiKey();
    expect(service.revokeApiKey(key)).toBe(true);
    const response = await post(service, service.addDocument(), model, { key });
    expect(response.status).toBe(401);
    expect((await response.json()).error_code).toBe('UNAUTHORIZED');
  });

  it('answers 401 FORBIDDEN to a valid key without permission to create e-way bills', async () => {
    const service = createMockService();
    const key = service.addApiKey({ canCreateEwayBill: false });
    const hashId = service.addDocument();
    const response = await post(service, hashId, model, { key });
    expect(response.status).toBe(401);
    expect((await response.json()).error_code).toBe('FORBIDDEN');
    expect(service.getDocument(hashId)?.ewayBill).toBeUndefined();
  });

  it('accepts the Bearer scheme in any letter case', async () => {
    const service = createMockService();
    const response = await post(service, service.addDocument(), model, { authorization: `bearer ${service.apiKey}` });
    expect(response.status).toBe(200);
  });

  it('scopes keys to their company: another company key cannot use this company document', async () => {
    const service = createMockService();
    const other = service.addCompany();
    const hashId = service.addDocument();
    const response = await post(service, hashId, model, { key: other.apiKey });
    expect(response.status).toBe(400);
    expect((await response.json()).error_code).toBe('INVALID_HASH_ID');
  });

  it('never shows the API key in an answer', async () => {
    const service = createMockService();
    const key = service.addApiKey({ canCreateEwayBill: false });
    const texts = await Promise.all([
      post(service, 'x', model, { key }).then((r) => r.text()),
      post(service, 'x', model, { authorization: `Basic ${key}` }).then((r) => r.text()),
    ]);
    for (const text of texts) expect(text).not.toContain(key.split('.')[2]);
  });
});
