import { buildEwayBillModel, createMockService } from 'invoicing-service-sdk/testing';
import { describe, expect, it } from 'vitest';
import { post } from './helpers.js';

const model = buildEwayBillModel();

describe('scripted faults of the mock service', () => {
  it('answers 500 with the error envelope to { status: 500 }', async () => {
    const service = createMockService();
    service.failNext({ status: 500 });
    const response = await post(service, service.addDocument(), model);
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ success: false, error_code: 'INTERNAL_SERVER_ERROR' });
  });

  it('answers a chosen status and error code', async () => {
    const service = createMockService();
    service.failNext({ status: 503, errorCode: 'MAINTENANCE', message: 'Back soon' });
    const response = await post(service, service.addDocument(), model);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      success: false,
      error_code: 'MAINTENANCE',
      message: 'Back soon',
      errors: {},
    });
  });

  it('answers an HTML 502 page, like a proxy, to { html: true }', async () => {
    const service = createMockService();
    service.failNext({ html: true });
    const response = await post(service, service.addDocument(), model);
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toMatch(/<html>.*502 Bad Gateway/s);
  });

  it('answers an empty body to { emptyBody: true }', async () => {
    const service = createMockService();
    service.failNext({ emptyBody: true });
    const response = await post(service, service.addDocument(), model);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });

  it('drops the connection to { drop: true }: fetch rejects with a TypeError', async () => {
    const service = createMockService();
    service.failNext({ drop: true });
    await expect(post(service, service.addDocument(), model)).rejects.toThrow(TypeError);
  });

  it('cuts the answer halfway to { truncate: true }: the headers arrive, reading the body fails', async () => {
    const service = createMockService();
    service.failNext({ truncate: true });
    const response = await post(service, service.addDocument(), model);
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow(/terminated/);
  });

  it('delays an otherwise normal answer by delayMs', async () => {
    const service = createMockService();
    const hashId = service.addDocument();
    service.failNext({ delayMs: 200 });
    let settled = false;
    const pending = post(service, hashId, model).then((r) => {
      settled = true;
      return r;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    expect(service.requests[0]?.status).toBeUndefined();
    expect((await pending).status).toBe(200);
    expect(service.getDocument(hashId)?.ewayBill).toBeDefined();
  });

  it('cuts a delay short on close(), so nothing hangs: the request ends as dropped', async () => {
    const service = createMockService();
    service.failNext({ delayMs: 60_000 });
    const pending = post(service, service.addDocument(), model);
    // Close once the request is being held (bounded: 500 turns of the event loop).
    for (let turn = 0; turn < 500 && service.requests.length === 0; turn++) await new Promise(setImmediate);
    expect(service.requests).toHaveLength(1);
    service.close();
    await expect(pending).rejects.toThrow(TypeError);
    expect(service.requests[0]?.status).toBeUndefined();
  });

  it('uses faults in the order queued, one per request, and times repeats one', async () => {
    const service = createMockService({ rateLimit: false });
    service.failNext({ status: 500 }, { times: 2 });
    service.failNext({ portalError: 238 });
    expect(service.pendingFaults).toBe(3);
    const statuses: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await post(service, service.addDocument(), model);
      statuses.push(response.status === 400 ? (await response.json()).error_code : response.status);
    }
    expect(statuses).toEqual([500, 500, 'PORTAL_ERROR_238', 200]);
    expect(service.pendingFaults).toBe(0);
  });

  it('forgets queued faults on clearFaults()', async () => {
    const service = createMockService();
    service.failNext({ status: 500 });
    service.clearFaults();
    expect((await post(service, service.addDocument(), model)).status).toBe(200);
  });

  it.each([
    [{}, /does nothing/],
    [{ drop: true, html: true }, /only one of/],
    [{ portalError: 0 }, /positive integer/],
    [{ status: 99 }, /200 to 599/],
    [{ status: 500, drop: true }, /only with html or emptyBody/],
    [{ delayMs: -1 }, /delayMs/],
    [{ errorCode: 'X' }, /needs a status/],
  ])('refuses the fault %j with a TypeError saying why', (fault, why) => {
    const service = createMockService();
    expect(() => service.failNext(fault)).toThrow(why);
    expect(() => service.failNext({ status: 500 }, { times: 0 })).toThrow(/times/);
  });
});
