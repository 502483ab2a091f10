// The runtime smoke: the built SDK (dist/index.js) against the harness's loopback mock, and a webhook check.
// Runs unchanged on Node, Bun, Deno and workerd; scripts/test-runtimes.mjs starts the mock and checks what comes back.

/**
 * @param {typeof import('../../dist/index.js') & typeof import('../../dist/webhooks.js')} sdk
 * @param {{ baseUrl: string, apiKey: string, docHashId: string, webhook: { body: string, signature: string, secret: string } }} config
 */
export async function smoke(sdk, config) {
  // When the SDK handed each request to fetch (`Date.now()`, the clock the harness's mock stamps arrivals with): the
  // rate limiter's decision, as this runtime carried it out. The harness checks these, not the gap between arrivals.
  // `sendsMono` are the same moments on the monotonic clock (`performance.now()`), the one the rate limiter spaces starts
  // on: the spacing is checked on it, and `sends` (the wall clock) are compared with the mock's stamps.
  const sends = [];
  const sendsMono = [];
  const result = { sends, sendsMono };
  const stampedFetch = (input, init) => {
    sends.push(Date.now());
    sendsMono.push(performance.now());
    return fetch(input, init);
  };
  const client = new sdk.ServiceClient({
    apiKey: config.apiKey,
    baseUrl: config.baseUrl,
    maxRetries: 0,
    fetch: stampedFetch,
  });
  const model = {
    supply_type: 'Outward',
    sub_supply_type: 'Supply',
    transporter_doc_date: '21-11-2026',
    transport_mode: 'Road',
    dispatch_from: address('Pune', 'MAHARASHTRA', '411001'),
    dispatch_to: address('Bengaluru', 'KARNATAKA', '560001'),
  };
  const created = await client.createEwayBill(config.docHashId, model);
  result.created = { success: created.success, message: created.message };

  const again = await client.createEwayBill(config.docHashId, model).catch((error) => error);
  result.again = {
    portalError: again instanceof sdk.PortalError,
    serviceError: again instanceof sdk.ServiceError,
    portalCode: again?.portalCode,
    alreadyGenerated: sdk.isAlreadyGenerated(again),
  };

  const invalid = await client.createEwayBill(config.docHashId, { ...model, transport_mode: 'road' }).catch((e) => e);
  result.invalid = { validationError: invalid instanceof sdk.ValidationError, field: invalid?.issues?.[0]?.field };

  const { body, signature, secret } = config.webhook;
  const event = await sdk.verifyWebhook(body, signature, secret);
  result.webhook = { eventType: event.event_type, eventId: event.event_id, hashId: event.data?.hash_id };
  const forged = await sdk.verifyWebhook(`${body} `, signature, secret).catch((error) => error);
  result.forged = { verificationError: forged instanceof sdk.WebhookVerificationError };
  result.signedHere = (await sdk.signWebhookAsync(body, secret)) === signature;

  // The fetch-style handler, as Bun.serve, Deno.serve and a Worker's fetch use it: a delivery, its duplicate, a forgery.
  const received = [];
  const handler = sdk.createWebhookHandler({ secret, onEvent: (event) => void received.push(event.event_id) });
  const deliver = (text, sig) =>
    handler(
      new Request('https://partner.test/webhooks', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature': sig },
        body: text,
      }),
    ).then((response) => response.status);
  result.handler = {
    delivered: await deliver(body, signature),
    duplicate: await deliver(body, signature),
    forged: await deliver(`${body} `, signature),
    received,
  };
  return result;
}

function address(city, state, pincode) {
  return { addr_id: 1, address_line1: '1 Main Road', address_line2: '', city, state, country: 'India', pincode };
}
