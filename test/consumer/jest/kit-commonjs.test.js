// A default Jest 30 project (CommonJS, babel-jest, no config): the kit loads with require, and everything but the msw
// handlers works. Run by scripts/test-package.mjs over the packed SDK, with msw installed in the project.
const { ServiceClient, ValidationError } = require('invoicing-service-sdk');
const { verifyWebhook } = require('invoicing-service-sdk/webhooks');
const {
  buildDocumentEvent,
  buildEwayBillModel,
  createMockService,
  signWebhook,
  startMockServer,
} = require('invoicing-service-sdk/testing');

let mock;
beforeAll(async () => {
  mock = await startMockServer({ rateLimit: false });
});
afterAll(() => mock.close());

test('a client generates an e-way bill against startMockServer', async () => {
  const client = new ServiceClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl });
  const doc = mock.service.addDocument();
  await expect(client.createEwayBill(doc, buildEwayBillModel())).resolves.toMatchObject({ success: true });
  expect(mock.service.getDocument(doc).ewayBill.number).toMatch(/^\d{12}$/);
});

test('a bad model is a ValidationError that names the field, and nothing is sent', async () => {
  const client = new ServiceClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl });
  const before = mock.service.requests.length;
  const error = await client
    .createEwayBill(mock.service.addDocument(), buildEwayBillModel({ transport_mode: 'road' }))
    .catch((e) => e);
  expect(error).toBeInstanceOf(ValidationError);
  expect(error.issues[0].field).toBe('transport_mode');
  expect(mock.service.requests.length).toBe(before);
});

test('signWebhook signs a fixture the verifier accepts, and a wrong secret is refused', async () => {
  const body = JSON.stringify(buildDocumentEvent());
  const event = await verifyWebhook(body, signWebhook(body, 'whsec_jest'), 'whsec_jest');
  expect(event.event_type).toBe('document');
  await expect(verifyWebhook(body, signWebhook(body, 'whsec_other'), 'whsec_jest')).rejects.toThrow();
});

test("the msw handlers point to Jest's ESM mode (msw is an ES module)", () => {
  expect(() => createMockService().handlers).toThrow(/service\.handlers needs msw.*Jest's ESM mode/);
});
