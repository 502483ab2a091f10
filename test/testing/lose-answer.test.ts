import { buildEwayBillModel, createMockService } from 'invoicing-service-sdk/testing';
import { describe, expect, it, vi } from 'vitest';
import { post } from './helpers.js';

const model = buildEwayBillModel();

describe('the loseAnswer fault of the mock service', () => {
  it('generates the e-way bill, then drops the connection: the log shows the request with no status', async () => {
    const service = createMockService();
    const hashId = service.addDocument();
    service.failNext({ loseAnswer: true });
    await expect(post(service, hashId, model)).rejects.toThrow(TypeError);
    expect(service.getDocument(hashId)?.ewayBill?.number).toMatch(/^\d{12}$/);
    expect(service.getDocument(hashId)?.ewayBill?.model).toEqual(model);
    expect(service.requests).toHaveLength(1);
    expect(service.requests[0]).toMatchObject({
      docHashId: hashId,
      keyId: service.keyIdOf(service.apiKey),
      status: undefined,
      errorCode: undefined,
      fault: { loseAnswer: true },
    });
    expect(service.pendingFaults).toBe(0);
  });

  it('rejects service.fetch with a TypeError, and a retry of the document answers PORTAL_ERROR_604', async () => {
    const service = createMockService({ rateLimit: false });
    const hashId = service.addDocument();
    service.failNext({ loseAnswer: true });
    const send = () =>
      service.fetch(`${service.baseUrl}/v2/ewaybill/${hashId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(model),
      });
    await expect(send()).rejects.toThrow(TypeError);
    const number = service.getDocument(hashId)?.ewayBill?.number;
    const retry = await send();
    expect(retry.status).toBe(400);
    expect(await retry.json()).toMatchObject({ success: false, error_code: 'PORTAL_ERROR_604' });
    expect(service.getDocument(hashId)?.ewayBill?.number).toBe(number);
    expect(service.requests.map((r) => r.status)).toEqual([undefined, 400]);
  });

  it('with delayMs, generates first and then waits: the bill exists while the answer is still pending', async () => {
    const service = createMockService();
    const hashId = service.addDocument();
    service.failNext({ loseAnswer: true, delayMs: 60_000 });
    let settled = false;
    const pending = post(service, hashId, model).finally(() => {
      settled = true;
    });
    await vi.waitFor(() => expect(service.getDocument(hashId)?.ewayBill).toBeDefined(), { timeout: 5_000 });
    expect(settled).toBe(false);
    service.close();
    await expect(pending).rejects.toThrow(TypeError);
    expect(service.requests[0]?.status).toBeUndefined();
  });

  it('loses the answer of a refused request too, and that request changes nothing', async () => {
    const service = createMockService();
    const hashId = service.addDocument();
    service.failNext({ loseAnswer: true });
    await expect(post(service, hashId, model, { key: 'eyJ0.eyJ1.unknown' })).rejects.toThrow(TypeError);
    expect(service.getDocument(hashId)?.ewayBill).toBeUndefined();
    expect((await post(service, hashId, model)).status).toBe(200);
  });

  it.each([
    [{ loseAnswer: true, drop: true }, /only one of .*drop and loseAnswer/],
    [{ loseAnswer: true, portalError: 238 }, /only one of .*portalError and loseAnswer/],
    [{ loseAnswer: true, truncate: true }, /only one of/],
    [{ loseAnswer: true, html: true }, /only one of/],
    [{ loseAnswer: true, emptyBody: true }, /only one of/],
    [{ loseAnswer: true, status: 500 }, /status can be combined only with html or emptyBody/],
    [{ loseAnswer: false }, /does nothing: .*loseAnswer/],
  ])('refuses the fault %j with a TypeError saying why', (fault, why) => {
    const service = createMockService();
    expect(() => service.failNext(fault)).toThrow(TypeError);
    expect(() => service.failNext(fault)).toThrow(why);
    expect(service.pendingFaults).toBe(0);
  });

  it('accepts loseAnswer alone and with delayMs, and times repeats it', () => {
    const service = createMockService();
    service.failNext({ loseAnswer: true });
    service.failNext({ loseAnswer: true, delayMs: 10 }, { times: 2 });
    expect(service.pendingFaults).toBe(3);
  });
});
