// The msw handlers with msw 2 (the peer range is `^2 || ^3`; the other tests use msw 3). The kit's own
// `import('msw')` is pointed at msw 2 (the `msw2` devDependency alias), and msw 2's setupServer serves them.
import { ServiceClient } from 'invoicing-service-sdk';
import { buildEwayBillModel, createMockService } from 'invoicing-service-sdk/testing';
import { setupServer } from 'msw2/node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('msw', async () => await import('msw2'));

describe('msw 2', () => {
  const service = createMockService({ rateLimit: false });
  // The types name msw 3's handler (this repo's `msw`); a partner on msw 2 gets msw 2's, as `msw` is theirs.
  const server = setupServer(...(service.handlers as unknown as Parameters<typeof setupServer>));
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => server.close());

  it('is the msw the handlers were built with', async () => {
    const msw2 = await import('msw2');
    const version = (await import('msw2/package.json', { with: { type: 'json' } })).default.version;
    expect(version).toMatch(/^2\./);
    expect(service.handlers[0]).toBeInstanceOf(msw2.HttpHandler);
  });

  it('answers a real client through the handlers, then reports a dropped connection as a network error', async () => {
    const client = new ServiceClient({ apiKey: service.apiKey, baseUrl: service.baseUrl, maxRetries: 0 });
    const doc = service.addDocument('INV-MSW2-1');
    await expect(client.createEwayBill(doc, buildEwayBillModel())).resolves.toMatchObject({ success: true });
    expect(service.getDocument(doc)?.ewayBill?.number).toMatch(/^\d{12}$/);

    service.failNext({ drop: true });
    await expect(fetch(`${service.baseUrl}/v2/ewaybill/x`, { method: 'POST' })).rejects.toThrow(TypeError);
  });
});
