// Jest's ESM mode (node --experimental-vm-modules, `transform: {}`): the recipe of docs/testing.md, msw handlers
// included. Run by scripts/test-package.mjs over the packed SDK, with msw 3, then with msw 2 (EXPECT_MSW_MAJOR).
import { ConnectionError, ServiceClient } from 'invoicing-service-sdk';
import { buildEwayBillModel, createMockService } from 'invoicing-service-sdk/testing';
import { setupServer } from 'msw/node';

const service = createMockService({ rateLimit: false });
const server = setupServer(...service.handlers);
beforeAll(() => server.listen({ onUnhandledFrame: 'error', onUnhandledRequest: 'error' }));
afterEach(() => service.reset());
afterAll(() => server.close());

test('the expected msw major serves the handlers', async () => {
  const { version } = (await import('msw/package.json', { with: { type: 'json' } })).default;
  expect(version.split('.')[0]).toBe(process.env.EXPECT_MSW_MAJOR);
});

test('a client generates an e-way bill through the msw handlers', async () => {
  const client = new ServiceClient({ apiKey: service.apiKey, baseUrl: service.baseUrl });
  const doc = service.addDocument('INV-JEST-ESM-1');
  await expect(client.createEwayBill(doc, buildEwayBillModel())).resolves.toMatchObject({ success: true });
  expect(service.getDocument(doc).ewayBill.number).toMatch(/^\d{12}$/);
});

test('a dropped connection is a network error: a ConnectionError for the client', async () => {
  service.failNext({ drop: true });
  // fetch's TypeError comes from Node's realm, not the test's: compare by name, as Jest's realms require.
  await expect(fetch(`${service.baseUrl}/v2/ewaybill/x`, { method: 'POST' })).rejects.toMatchObject({
    name: 'TypeError',
  });
  service.failNext({ drop: true });
  const client = new ServiceClient({ apiKey: service.apiKey, baseUrl: service.baseUrl, maxRetries: 0 });
  const error = await client.createEwayBill(service.addDocument(), buildEwayBillModel()).catch((e) => e);
  expect(error).toBeInstanceOf(ConnectionError);
});
