// Run by scripts/test-package.mjs inside a scratch project that has the packed SDK and NO msw, once as ESM and once
// as CommonJS. The line below is replaced with `import(...)` or `require(...)` of `sdk` and `testing`.
/* LOAD */
const { createRequire } = await import('node:module');
const format = typeof require === 'function' ? 'require' : 'import';
const assert = (condition, message) => {
  if (!condition) throw new Error(`no-msw check (${format}) failed: ${message}`);
};

const mswFound = (() => {
  try {
    createRequire(process.argv[1]).resolve('msw');
    return true;
  } catch {
    return false;
  }
})();
assert(!mswFound, 'msw must not be installed in this project');
// Nor @opentelemetry/api: the client's telemetry reads the application's registrations and needs no package.
const otelFound = (() => {
  try {
    createRequire(process.argv[1]).resolve('@opentelemetry/api');
    return true;
  } catch {
    return false;
  }
})();
assert(!otelFound, '@opentelemetry/api must not be installed in this project');

// The mock server is a real HTTP server: it needs no msw.
const mock = await testing.startMockServer({ rateLimit: false });
try {
  assert(/^http:\/\/127\.0\.0\.1:\d+\/api\/partner$/.test(mock.baseUrl), `baseUrl is ${mock.baseUrl}`);
  const client = new sdk.ServiceClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl });
  const doc = mock.service.addDocument({ hashId: 'INV-NO-MSW-1' });
  const result = await client.createEwayBill(doc, testing.buildEwayBillModel());
  assert(result.success === true, 'createEwayBill against startMockServer');
  assert(/^\d{12}$/.test(mock.service.getDocument(doc)?.ewayBill?.number ?? ''), 'the mock generated the bill');
} finally {
  await mock.close();
}

// Fixtures and signWebhook, checked by the SDK's verifier.
const event = testing.buildDocumentEvent({ data: { hash_id: 'INV-NO-MSW-1' } });
const body = JSON.stringify(event);
const webhooks =
  typeof require === 'function'
    ? require('invoicing-service-sdk/webhooks')
    : await import('invoicing-service-sdk/webhooks');
const verified = await webhooks.verifyWebhook(body, testing.signWebhook(body, 'whsec_consumer'), 'whsec_consumer');
assert(verified.event_id === event.event_id && verified.data.hash_id === 'INV-NO-MSW-1', 'a signed fixture verifies');

// Only the msw handlers need msw, and they say so.
let error;
try {
  void testing.createMockService().handlers;
} catch (caught) {
  error = caught;
}
assert(/service\.handlers needs msw; msw is not installed/.test(error?.message ?? ''), `handlers said: ${error}`);

console.log(`ok: ${format} without msw (startMockServer, fixtures, signWebhook; handlers ask for msw)`);
