// A partner's unit tests of its own integration code, with vitest, msw and the SDK's testing kit.

import { ServiceClient } from 'invoicing-service-sdk';
import { createMockService } from 'invoicing-service-sdk/testing';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Order, shipOrder } from './ship-order.js';

// One emulated service for the file; its handlers answer on service.baseUrl.
const service = createMockService();
const server = setupServer(...service.handlers);

// Any request no handler answers fails the test. msw 3 calls the option onUnhandledFrame, msw 2 onUnhandledRequest,
// and each ignores the other's name: passing both works with either major.
const strict = { onUnhandledFrame: 'error', onUnhandledRequest: 'error' } as const;
beforeAll(() => server.listen(strict));
afterEach(() => service.reset());
afterAll(() => server.close());

// The SDK spaces calls of one key by 1 s, as the service requires; a fresh key per test keeps tests fast.
const newClient = () => new ServiceClient({ apiKey: service.addApiKey(), baseUrl: service.baseUrl });

function order(invoiceHashId: string): Order {
  return {
    invoiceHashId,
    shippedOn: '21-11-2026',
    vehicle: 'KA01AB1234',
    warehouse: {
      id: 7,
      street: '1 Industrial Area',
      area: 'Peenya',
      city: 'Bengaluru',
      state: 'KARNATAKA',
      pin: '560058',
    },
    customer: {
      addressId: 1042,
      street: '9 Anna Salai',
      area: 'Teynampet',
      city: 'Chennai',
      state: 'TAMIL NADU',
      pin: '600018',
    },
  };
}

describe('shipOrder', () => {
  it('generates the e-way bill and sends the warehouse and customer addresses', async () => {
    const invoice = service.addDocument('INV-1');
    const result = await shipOrder(newClient(), order(invoice));
    expect(result.outcome).toBe('generated');
    expect(service.getDocument(invoice)?.ewayBill).toBeDefined();
    const [request] = service.requests;
    expect(request?.body).toMatchObject({
      dispatch_from: { addr_id: 7, state: 'KARNATAKA', pincode: '560058' },
      dispatch_to: { addr_id: 1042, city: 'Chennai' },
    });
  });

  it('treats an e-way bill that already exists as done', async () => {
    const invoice = service.addDocument('INV-2');
    service.failNext({ portalError: 604 });
    expect(await shipOrder(newClient(), order(invoice))).toEqual({ outcome: 'already-generated' });
  });

  it('asks for a person when the company is not connected to the portal', async () => {
    service.setPortalConnected(false);
    const result = await shipOrder(newClient(), order(service.addDocument('INV-3')));
    expect(result).toMatchObject({ outcome: 'needs-attention', code: 'PORTAL_ERROR' });
  });

  it('asks for a person when the invoice is unknown to the service', async () => {
    const result = await shipOrder(newClient(), order('INV-NOT-THERE'));
    expect(result).toMatchObject({ outcome: 'needs-attention', code: 'INVALID_HASH_ID' });
  });

  it('does not retry a 500, since the bill may have been generated', async () => {
    service.failNext({ status: 500 });
    const result = await shipOrder(newClient(), order(service.addDocument('INV-4')));
    expect(result).toMatchObject({ outcome: 'needs-attention', code: 'SERVER_ERROR' });
    expect(service.requests).toHaveLength(1);
  });
});
