// Run inside the scratch consumer by test-package.mjs, once as ESM and once as CJS.
// The line below is replaced with `import(...)` or `require(...)` of the installed package.
/* LOAD */
const http = await import('node:http');
const util = await import('node:util');
const assert = (condition, message) => {
  if (!condition) throw new Error(`consumer check failed: ${message}`);
};

assert(typeof sdk.ServiceClient === 'function', 'ServiceClient is exported');
assert(sdk.STATES.length === 39 && sdk.COUNTRIES.length === 194, 'the spec lists are complete');
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

  const invalid = await client.createEwayBill('doc-1', { ...model, transport_mode: 'road' }).catch((error) => error);
  assert(
    invalid instanceof sdk.ValidationError && invalid.issues[0].field === 'transport_mode',
    'ValidationError names the field',
  );
} finally {
  server.close();
}
console.log(
  `ok: ${typeof require === 'function' ? 'require' : 'import'} works (ServiceClient, errors, validation, no key in output, the testing subpath)`,
);
