// Issue 28, item 11: `lastResponse` is on request()'s object results at run time; `doc.lastResponse` was TS2339.
import type { RequestResult, ResponseMeta, ServiceClient } from 'invoicing-service-sdk';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';

declare const client: ServiceClient;

describe('the type of what request() resolves to', () => {
  it('an object answer has its lastResponse, attempts included', async () => {
    const doc = await client.request<{ hash_id: string }>('POST', '/v2/doc', { body: {} });
    expectTypeOf(doc.hash_id).toEqualTypeOf<string>();
    expectTypeOf(doc.lastResponse).toEqualTypeOf<ResponseMeta>();
    expectTypeOf(doc.lastResponse.attempts).toEqualTypeOf<number>();
    expectTypeOf(doc.lastResponse.requestId).toEqualTypeOf<string | undefined>();
  });

  it('so has an answer checked by a schema, and an array', async () => {
    const checked = await client.request('GET', '/v2/doc/1', { schema: z.object({ id: z.string() }) });
    expectTypeOf(checked.id).toEqualTypeOf<string>();
    expectTypeOf(checked.lastResponse.status).toEqualTypeOf<number>();
    const list = await client.request<{ id: number }[]>('GET', '/v2/product/list');
    expectTypeOf(list.lastResponse).toEqualTypeOf<ResponseMeta>();
  });

  it('an answer that is not an object has none, and may be null or undefined as declared', async () => {
    const count = await client.request<number>('GET', '/v2/count');
    expectTypeOf(count).toEqualTypeOf<number>();
    const maybe = await client.request<{ id: string } | undefined>('DELETE', '/v2/doc/1');
    expectTypeOf(maybe).toEqualTypeOf<({ id: string } & { readonly lastResponse: ResponseMeta }) | undefined>();
    // @ts-expect-error possibly undefined (a 204 resolves undefined)
    maybe.lastResponse;
    const unknownAnswer = await client.request('GET', '/v2/doc/1');
    expectTypeOf(unknownAnswer).toBeUnknown();
  });

  it('RequestResult names it', () => {
    expectTypeOf<RequestResult<{ a: 1 }>>().toEqualTypeOf<{ a: 1 } & { readonly lastResponse: ResponseMeta }>();
    expectTypeOf<RequestResult<string | null>>().toEqualTypeOf<string | null>();
  });
});
