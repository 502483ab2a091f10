// Run inside the scratch consumer by test-package.mjs, once as ESM and once as CJS.
// The line below is replaced with `import(...)` or `require(...)` of the installed package.
/* LOAD */
const http = await import('node:http');
const util = await import('node:util');
const { createRequire } = await import('node:module');
const format = typeof require === 'function' ? 'require' : 'import';
// The same entry points from the other build (CJS when this is ESM, and the reverse), for the cross-build checks.
const requireHere = createRequire(process.argv[1]);
const other = format === 'import' ? requireHere('invoicing-service-sdk') : await import('invoicing-service-sdk');
const testing =
  format === 'import' ? await import('invoicing-service-sdk/testing') : require('invoicing-service-sdk/testing');
const model =
  format === 'import' ? await import('invoicing-service-sdk/model') : require('invoicing-service-sdk/model');
const assert = (condition, message) => {
  if (!condition) throw new Error(`consumer check failed: ${message}`);
};

assert(typeof sdk.ServiceClient === 'function', 'ServiceClient is exported');
assert(model.STATES.length === 39 && model.COUNTRIES.length === 194, 'the spec lists are complete (the model subpath)');
assert(/^\d+\.\d+\.\d+/.test(sdk.SDK_VERSION), 'SDK_VERSION is written in at build time');

let typeError;
try {
  new sdk.ServiceClient({ baseUrl: 'http://127.0.0.1:1' });
} catch (error) {
  typeError = error;
}
assert(typeError instanceof TypeError && /SERVICE_API_KEY/.test(typeError.message), 'a missing key names the env var');

const answers = [
  [200, { success: true, message: 'E-way bill generated' }],
  [400, { success: false, error_code: 'PORTAL_ERROR_604', message: 'already generated', errors: {} }],
];
const server = http.createServer((req, res) => {
  const [status, body] = answers.shift() ?? [500, { success: false, error_code: 'X', message: 'unexpected' }];
  req.resume();
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const key = `consumer-secret-key-${Math.random()}`;
try {
  const client = new sdk.ServiceClient({
    apiKey: key,
    baseUrl: `http://127.0.0.1:${server.address().port}/api/partner/`,
  });
  assert(
    !util.inspect(client, { depth: 10 }).includes(key) && !JSON.stringify(client).includes(key),
    'the key is not printed',
  );
  const address = {
    addr_id: 1,
    address_line1: 'a',
    address_line2: '',
    city: 'Pune',
    state: 'MAHARASHTRA',
    country: 'India',
    pincode: '411001',
  };
  const model = {
    supply_type: 'Outward',
    sub_supply_type: 'Supply',
    transporter_doc_date: '21-11-2026',
    transport_mode: 'Road',
    dispatch_from: address,
    dispatch_to: address,
  };
  const result = await client.createEwayBill('doc-1', model);
  assert(result.success === true && result.message === 'E-way bill generated', 'createEwayBill resolves to the answer');

  const portal = await client.createEwayBill('doc-1', model).catch((error) => error);
  assert(
    portal instanceof sdk.PortalError && portal instanceof sdk.ApiError && portal instanceof sdk.ServiceError,
    'instanceof works',
  );
  assert(portal.code === 'PORTAL_ERROR' && portal.portalCode === 604, 'PortalError carries its code');
  assert(
    !util.inspect(portal, { depth: 10 }).includes(key) && !JSON.stringify(portal).includes(key),
    'errors do not print the key',
  );

  // An error thrown by this build is recognised by the classes of the other build, and only by the right ones.
  assert(other !== sdk && other.PortalError !== sdk.PortalError, 'the other build is a separate copy');
  assert(
    portal instanceof other.PortalError && portal instanceof other.ApiError && portal instanceof other.ServiceError,
    `an error of the ${format} build is instanceof the other build's classes`,
  );
  assert(
    !(portal instanceof other.ServerError) && !(portal instanceof other.ValidationError),
    "an error of this build is not instanceof the other build's unrelated classes",
  );
  const foreign = new other.RateLimitError({ status: 429, message: 'slow down', retryAfter: 1 });
  assert(
    foreign instanceof sdk.RateLimitError &&
      foreign instanceof sdk.ServiceError &&
      !(foreign instanceof sdk.ServerError),
    `an error of the other build is instanceof the ${format} build's classes`,
  );

  const invalid = await client.createEwayBill('doc-1', { ...model, transport_mode: 'road' }).catch((error) => error);
  assert(
    invalid instanceof sdk.ValidationError && invalid.issues[0].field === 'transport_mode',
    'ValidationError names the field',
  );
} finally {
  server.close();
}

// The testing subpath of the same build: its mock service answers this build's client.
assert(typeof testing.createMockService === 'function', 'the testing subpath exports createMockService');
const service = testing.createMockService({ rateLimit: false });
const mocked = new sdk.ServiceClient({ apiKey: service.apiKey, baseUrl: service.baseUrl, fetch: service.fetch });
const generated = await mocked.createEwayBill(service.addDocument(), testing.buildEwayBillModel());
assert(generated.success === true, 'the client generates an e-way bill against the testing kit');
const refused = await mocked.createEwayBill('no-such-document', testing.buildEwayBillModel()).catch((error) => error);
assert(
  refused instanceof sdk.InvalidHashIdError && refused instanceof other.ApiError,
  "the testing kit's refusal is a typed error",
);

// The webhooks subpath of the same build: it verifies what the root signs, and its errors are the SDK's errors.
const webhooks =
  format === 'import' ? await import('invoicing-service-sdk/webhooks') : require('invoicing-service-sdk/webhooks');
assert(typeof webhooks.verifyWebhook === 'function', 'the webhooks subpath exports verifyWebhook');
const hookBody = JSON.stringify({ event_id: 'e-1', event_type: 'document', data: { hash_id: 'h' } });
const hookSecret = `whsec_${Math.random()}`;
const hookEvent = await webhooks.verifyWebhook(hookBody, webhooks.signWebhook(hookBody, hookSecret), hookSecret);
assert(
  hookEvent.known === false && hookEvent.received_event_type === 'document' && hookEvent.issues.length > 0,
  'a drifted event comes back unrecognised with its issues',
);
const forged = await webhooks.verifyWebhook(hookBody, 'ab'.repeat(32), hookSecret).catch((error) => error);
assert(
  forged instanceof webhooks.WebhookVerificationError &&
    forged instanceof sdk.ServiceError &&
    forged instanceof other.ServiceError,
  'a forged webhook is a WebhookVerificationError of the SDK',
);

// The gst subpath of the same build: the GST checks, and errors of the SDK's own classes.
const gst = format === 'import' ? await import('invoicing-service-sdk/gst') : require('invoicing-service-sdk/gst');
assert(gst.checkGstin('27AAPFU0939F1ZV').valid === true, 'the gst subpath checks a GSTIN');
assert(gst.checkGstin('27AAPFU0939F1ZW').valid === false, 'the gst subpath finds a wrong check character');
assert(gst.stateFromGstin('27AAPFU0939F1ZV') === 'MAHARASHTRA', 'the gst subpath knows the state codes');
assert(gst.describePortalError('PORTAL_ERROR_604').category === 'state', 'the gst subpath has the portal catalogue');
const notGstin = (() => {
  try {
    gst.parseGstin('27AAPFU0939F1ZW');
  } catch (error) {
    return error;
  }
})();
assert(
  notGstin instanceof sdk.ValidationError && notGstin instanceof other.ValidationError,
  "the gst subpath's ValidationError is the root's, in both builds",
);
// 0.2.0: the root no longer re-exports the subpaths' names (issue 18: a surface a reader can hold).
assert(sdk.checkGstin === undefined && sdk.verifyWebhook === undefined, 'the root does not re-export gst or webhooks');

// The SDK's schemas inside the consumer's own zod (the ESM build carries its own tree-shaken copy of zod's core).
const z = format === 'import' ? await import('zod') : require('zod');
const outer = z.object({ invoice: z.string(), model: model.EwayBillModelSchema });
const goodModel = testing.buildEwayBillModel();
assert(
  outer.safeParse({ invoice: 'INV-1', model: goodModel }).success === true,
  "the SDK's schema parses in the user's zod",
);
const badOuter = outer.safeParse({ invoice: 'INV-1', model: { ...goodModel, supply_type: 'Sideways' } });
assert(
  badOuter.success === false && badOuter.error.issues.map((i) => i.path.join('.')).join() === 'model.supply_type',
  `the SDK's schema reports its field inside the user's zod: ${JSON.stringify(badOuter.error?.issues)}`,
);
assert(
  z
    .array(model.EwayBillAddressSchema)
    .safeParse([goodModel.dispatch_from, { ...goodModel.dispatch_to, addr_id: -1 }])
    .error?.issues[0]?.path.join('.') === '1.addr_id',
  "the SDK's address schema works in the user's z.array",
);

console.log(
  `ok: ${format} works (ServiceClient, errors, validation, no key in output, instanceof across the ESM and CJS builds, the testing, webhooks and gst subpaths, the schemas inside the user's zod)`,
);
