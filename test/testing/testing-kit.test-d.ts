import type { EwayBillModel } from 'invoicing-service-sdk';
import {
  buildDocumentEvent,
  buildEwayBillModel,
  buildInventoryEvent,
  createMockService,
  type MockServer,
  type RecordedRequest,
  startMockServer,
} from 'invoicing-service-sdk/testing';
import type { HttpHandler } from 'msw';
import { describe, expectTypeOf, it } from 'vitest';

describe('types of the testing kit', () => {
  it('builds models and events of the SDK types', () => {
    expectTypeOf(buildEwayBillModel()).toEqualTypeOf<EwayBillModel>();
    expectTypeOf(buildDocumentEvent().event_type).toEqualTypeOf<'document'>();
    expectTypeOf(buildInventoryEvent().data.movement).toEqualTypeOf<'in' | 'out'>();
    // @ts-expect-error: an address override must use the spec's field names
    buildEwayBillModel({ dispatch_to: { zip: '600001' } });
  });

  it('gives msw handlers and a typed request log', () => {
    const service = createMockService();
    expectTypeOf(service.handlers).toEqualTypeOf<readonly HttpHandler[]>();
    expectTypeOf(service.requests).toEqualTypeOf<readonly RecordedRequest[]>();
    expectTypeOf(startMockServer).returns.resolves.toEqualTypeOf<MockServer>();
    // @ts-expect-error: not a fault the mock knows
    service.failNext({ explode: true });
  });

  it("says what the request log kept of a body, and takes the dashboard's allowed hosts", () => {
    expectTypeOf<RecordedRequest['bodyBytes']>().toEqualTypeOf<number>();
    expectTypeOf<RecordedRequest['bodyKept']>().toEqualTypeOf<'whole' | 'truncated' | 'evicted'>();
    expectTypeOf(startMockServer).toBeCallableWith({ host: '0.0.0.0', allowedHosts: ['mock'] });
    // @ts-expect-error: host names, not a single string
    startMockServer({ allowedHosts: 'mock' });
  });

  it('names the mock server URL baseUrl (url deprecated) and takes addDocument options', () => {
    expectTypeOf<MockServer['baseUrl']>().toEqualTypeOf<string>();
    expectTypeOf<MockServer['url']>().toEqualTypeOf<string>();
    const service = createMockService();
    expectTypeOf(service.addDocument({ companyId: 'c' })).toEqualTypeOf<string>();
    expectTypeOf(service.addDocument({ hashId: 'INV-1', companyId: 'c' })).toEqualTypeOf<string>();
    expectTypeOf(service.addDocument('INV-2')).toEqualTypeOf<string>();
    expectTypeOf(service.addDocument(undefined, { companyId: 'c' })).toEqualTypeOf<string>(); // deprecated form
    // @ts-expect-error: not an option of addDocument
    service.addDocument({ companyid: 'c' });
    // @ts-expect-error: one options object, not an object and more options
    service.addDocument({ hashId: 'a' }, { companyId: 'c' });
  });
});
