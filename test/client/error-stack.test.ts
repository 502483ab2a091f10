// An error of a call carries the partner's own frames in its stack (V8's async stack traces), for the first call of a
// client (which waits for the client's send path to be ready) and for the later ones: the chain from the answer's
// mapping up to the partner's await must stay a chain of promises (a timer, a callback or an event in it would cut the
// stack at the SDK, and the partner could not tell which of their calls failed).
import { PortalError, ServiceClient, ServiceError } from 'invoicing-service-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { json, startFaultServer } from '../helpers/fault-server.js';
import { freshKey, validModel } from '../helpers/model.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const portal238 = json(400, { success: false, error_code: 'PORTAL_ERROR_238', message: 'Invalid vehicle', errors: [] });

async function partnerNightlyJob(client: ServiceClient, docHashId: string): Promise<unknown> {
  try {
    await client.createEwayBill(docHashId, validModel());
    return undefined;
  } catch (error) {
    return error;
  }
}

async function partnerProductSync(client: ServiceClient): Promise<unknown> {
  try {
    await client.request('GET', '/v2/product/list');
    return undefined;
  } catch (error) {
    return error;
  }
}

describe("an error's stack reaches the partner's code", () => {
  it('createEwayBill: the first call of a client and a later one', async () => {
    const server = await startFaultServer([portal238, portal238]);
    closers.push(server.close);
    const client = new ServiceClient({ apiKey: freshKey('stack'), baseUrl: server.baseUrl, maxRetries: 0 });
    for (const docHashId of ['doc-first', 'doc-later']) {
      const error = await partnerNightlyJob(client, docHashId);
      expect(error).toBeInstanceOf(PortalError);
      expect((error as Error).stack).toContain('partnerNightlyJob');
    }
    expect(server.posts).toBe(2);
  }, 15_000);

  it('request: a service error answer', async () => {
    const server = await startFaultServer([], json(401, { success: false, error_code: 'UNAUTHORIZED', message: 'no' }));
    closers.push(server.close);
    const client = new ServiceClient({ apiKey: freshKey('stack'), baseUrl: server.baseUrl, maxRetries: 0 });
    const error = await partnerProductSync(client);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as Error).stack).toContain('partnerProductSync');
  });
});
