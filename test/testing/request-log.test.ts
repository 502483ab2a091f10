import { buildEwayBillModel, createMockService } from 'invoicing-service-sdk/testing';
import { describe, expect, it } from 'vitest';
import { manualClock, post } from './helpers.js';

const model = buildEwayBillModel();

describe('request log of the mock service', () => {
  it('records what arrived and what was answered, without the API key', async () => {
    const clock = manualClock(42_000);
    const service = createMockService({ now: clock.now });
    const hashId = service.addDocument();
    await post(service, hashId, model);
    const [entry] = service.requests;
    expect(entry).toEqual({
      seq: 1,
      method: 'POST',
      path: `/api/partner/v2/ewaybill/${hashId}`,
      docHashId: hashId,
      headers: { authorization: 'Bearer [redacted]', 'content-type': 'application/json' },
      body: model,
      bodyBytes: JSON.stringify(model).length,
      bodyKept: 'whole',
      keyId: 'key_1',
      companyId: service.companyId,
      receivedAt: 42_000,
      status: 200,
      errorCode: undefined,
      fault: undefined,
    });
    expect(JSON.stringify(service.requests)).not.toContain(service.apiKey);
  });

  it('records the error code, the fault and the key of each answer', async () => {
    const service = createMockService({ rateLimit: false });
    const key = service.addApiKey();
    service.failNext({ portalError: 238 });
    await post(service, service.addDocument(), model, { key });
    await post(service, 'nope', model, { key });
    await post(service, 'nope', model, { key: null });
    expect(service.requests.map((r) => [r.keyId, r.status, r.errorCode, r.fault])).toEqual([
      [service.keyIdOf(key), 400, 'PORTAL_ERROR_238', { portalError: 238 }],
      [service.keyIdOf(key), 400, 'INVALID_HASH_ID', undefined],
      [undefined, 401, 'UNAUTHORIZED', undefined],
    ]);
  });

  it('keeps a body that is not JSON as text, and redacts any Authorization scheme', async () => {
    const service = createMockService();
    await post(service, 'x', undefined, { raw: 'not json', authorization: 'Basic c2VjcmV0' });
    const [entry] = service.requests;
    expect(entry?.body).toBe('not json');
    expect(entry?.headers.authorization).toBe('Basic [redacted]');
  });

  it('records a dropped request with no status', async () => {
    const service = createMockService();
    service.failNext({ drop: true });
    await post(service, 'x', model).catch(() => undefined);
    expect(service.requests[0]).toMatchObject({ status: undefined, fault: { drop: true } });
  });

  it('gives frozen copies that later requests do not change', async () => {
    const service = createMockService({ rateLimit: false });
    await post(service, 'a', model);
    const before = service.requests;
    await post(service, 'b', model);
    expect(before).toHaveLength(1);
    expect(Object.isFrozen(before[0])).toBe(true);
    expect(service.requests).toHaveLength(2);
  });

  it('calls onRequest with each answered entry', async () => {
    const seen: unknown[] = [];
    const service = createMockService({ onRequest: (entry) => seen.push([entry.seq, entry.status]) });
    await post(service, 'a', model);
    expect(seen).toEqual([[1, 400]]);
  });

  it('goes back to its first state on reset(), keeping the same apiKey', async () => {
    const service = createMockService();
    const { apiKey, companyId } = service;
    const extra = service.addApiKey();
    const hashId = service.addDocument();
    service.failNext({ status: 500 });
    await post(service, hashId, model, { key: extra });
    service.reset();
    expect([service.apiKey, service.companyId]).toEqual([apiKey, companyId]);
    expect(service.requests).toEqual([]);
    expect(service.pendingFaults).toBe(0);
    expect(service.documents()).toEqual([]);
    expect(service.arrivalsOf(extra)).toEqual([]);
    expect((await post(service, 'x', model, { key: extra })).status).toBe(401);
    expect((await post(service, service.addDocument(), model)).status).toBe(200);
  });

  it('keeps the bodies of the newest 200 requests only, each cut to its first 65,536 characters, and says so', async () => {
    const service = createMockService({ rateLimit: false });
    const hashId = service.addDocument();
    // 300 requests of 200 kB (100,000 characters): the log kept 60 MB of bodies before it was bounded.
    const big = JSON.stringify({ ...model, note: 'é'.repeat(100_000) });
    for (let i = 0; i < 300; i++) await post(service, hashId, model, { raw: big });
    await post(service, hashId, model); // a small body, kept whole and parsed

    const requests = service.requests;
    expect(requests).toHaveLength(301);
    const kept = requests.filter((r) => r.body !== undefined);
    expect(kept).toHaveLength(200);
    const keptChars = kept.reduce((sum, r) => sum + (typeof r.body === 'string' ? r.body.length : 0), 0);
    expect(keptChars).toBeLessThanOrEqual(199 * 65_536);
    expect(requests.map((r) => r.bodyKept)).toEqual([
      ...Array(101).fill('evicted'),
      ...Array(199).fill('truncated'),
      'whole',
    ]);
    const [oldest, newestBig, small] = [requests[0], requests[299], requests[300]];
    expect(oldest).toMatchObject({ seq: 1, body: undefined, bodyBytes: Buffer.byteLength(big), status: 400 });
    expect(newestBig?.body).toBe(big.slice(0, 65_536));
    expect(newestBig?.bodyBytes).toBe(Buffer.byteLength(big));
    expect(small).toMatchObject({ body: model, bodyKept: 'whole', status: 200 });
  }, 60_000);

  it('keeps the newest 10,000 requests, numbered on from the first', async () => {
    const service = createMockService({ rateLimit: false });
    for (let i = 0; i < 10_005; i++) await post(service, 'x', model, { key: null, raw: '' });
    const requests = service.requests;
    expect(requests).toHaveLength(10_000);
    expect([requests[0]?.seq, requests.at(-1)?.seq]).toEqual([6, 10_005]);
  }, 60_000);
});
