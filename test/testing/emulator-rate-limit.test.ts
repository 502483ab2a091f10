import { buildEwayBillModel, createMockService } from 'invoicing-service-sdk/testing';
import { describe, expect, it } from 'vitest';
import { manualClock, post } from './helpers.js';

const model = buildEwayBillModel();

describe('rate limit of the mock service (1 request per second per key)', () => {
  it('answers 429 RATE_LIMITED with Retry-After to a second request of one key within a second', async () => {
    const clock = manualClock();
    const service = createMockService({ now: clock.now });
    expect((await post(service, service.addDocument(), model)).status).toBe(200);
    clock.advance(400);
    const response = await post(service, service.addDocument(), model);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toEqual({
      success: false,
      error_code: 'RATE_LIMITED',
      message: expect.stringContaining('1 request per second'),
      errors: {},
    });
  });

  it('lets the next request through once a full second has passed since the last accepted one', async () => {
    const clock = manualClock();
    const service = createMockService({ now: clock.now });
    await post(service, service.addDocument(), model);
    clock.advance(999);
    expect((await post(service, service.addDocument(), model)).status).toBe(429);
    clock.advance(1); // 1000 ms after the accepted request; the refused one did not move the window
    expect((await post(service, service.addDocument(), model)).status).toBe(200);
  });

  it('counts each key apart, also two keys of one company', async () => {
    const clock = manualClock();
    const service = createMockService({ now: clock.now });
    const second = service.addApiKey();
    const other = service.addCompany();
    expect((await post(service, service.addDocument(), model)).status).toBe(200);
    expect((await post(service, service.addDocument(), model, { key: second })).status).toBe(200);
    const foreignDoc = service.addDocument(undefined, { companyId: other.companyId });
    expect((await post(service, foreignDoc, model, { key: other.apiKey })).status).toBe(200);
  });

  it('counts requests that fail validation, as the limit applies to every request', async () => {
    const clock = manualClock();
    const service = createMockService({ now: clock.now });
    expect((await post(service, service.addDocument(), { bad: true })).status).toBe(400);
    expect((await post(service, service.addDocument(), model)).status).toBe(429);
  });

  it('does not limit requests without a valid key (they get 401)', async () => {
    const service = createMockService({ now: manualClock().now });
    for (let i = 0; i < 3; i++) expect((await post(service, 'x', model, { key: 'a.b.c' })).status).toBe(401);
  });

  it('can be turned off with rateLimit: false', async () => {
    const service = createMockService({ rateLimit: false, now: manualClock().now });
    for (let i = 0; i < 5; i++) expect((await post(service, service.addDocument(), model)).status).toBe(200);
  });

  it('takes another interval with rateLimit.intervalMs', async () => {
    const clock = manualClock();
    const service = createMockService({ rateLimit: { intervalMs: 2500 }, now: clock.now });
    await post(service, service.addDocument(), model);
    clock.advance(1200);
    const refused = await post(service, service.addDocument(), model);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('2');
    clock.advance(1300);
    expect((await post(service, service.addDocument(), model)).status).toBe(200);
  });

  it('keeps the arrival times of every request of a key, refused ones included', async () => {
    const clock = manualClock(5000);
    const service = createMockService({ now: clock.now });
    const key = service.addApiKey();
    await post(service, service.addDocument(), model, { key });
    clock.advance(300);
    await post(service, service.addDocument(), model, { key });
    clock.advance(900);
    await post(service, service.addDocument(), model, { key });
    expect(service.arrivalsOf(key)).toEqual([5000, 5300, 6200]);
    expect(service.arrivalsOf(service.apiKey)).toEqual([]);
    expect(service.requests.map((r) => r.status)).toEqual([200, 429, 200]);
  });

  it('rejects a rate-limit interval that is not a positive number', () => {
    expect(() => createMockService({ rateLimit: { intervalMs: 0 } })).toThrow(TypeError);
  });
});
