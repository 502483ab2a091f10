import { ServiceClient } from 'invoicing-service-sdk';
import { buildEwayBillModel, startMockServer } from 'invoicing-service-sdk/testing';
import { describe, expect, it } from 'vitest';

const KEY = 'eyJhbGciOiJIUzI1NiJ9.eyJraWQiOiJrZXlfMSJ9.c3RhYmxlLWtleS1mb3ItdGVzdHM';

describe('a mock service with a given API key', () => {
  it('accepts the same key in two servers one after the other, as across restarts', async () => {
    for (const doc of ['doc_first', 'doc_second']) {
      const mock = await startMockServer({ apiKey: KEY, rateLimit: false });
      try {
        expect(mock.apiKey).toBe(KEY);
        mock.service.addDocument(doc);
        const client = new ServiceClient({ apiKey: KEY, baseUrl: mock.url, preflight: 'off' });
        await expect(client.createEwayBill(doc, buildEwayBillModel())).resolves.toMatchObject({ success: true });
        mock.service.reset();
        expect(mock.apiKey).toBe(KEY);
      } finally {
        await mock.close();
      }
    }
  });

  it('refuses a key that is not shaped like the service keys, without showing it', async () => {
    await expect(startMockServer({ apiKey: 'not-a-jwt-secret' })).rejects.toThrow(/three base64url parts/);
    await expect(startMockServer({ apiKey: 'not-a-jwt-secret' })).rejects.not.toThrow(/not-a-jwt-secret/);
  });
});
