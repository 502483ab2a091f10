// Review 28, finding 6: `RequestResult<T>` types `lastResponse` on every object answer, but a schema that returns a
// frozen object (zod's `.readonly()`) left it absent at run time, so `doc.lastResponse.attempts` type-checked and threw.
// A 204 resolves `undefined`, as documented, whatever `T` says. Against a real node:http server on loopback.
import { ServiceClient } from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonAnswer, startAnswerServer } from '../helpers/answer-server.js';
import { freshKey } from '../helpers/model.js';

let server: Awaited<ReturnType<typeof startAnswerServer>>;

beforeEach(async () => {
  server = await startAnswerServer(jsonAnswer(200, { id: 'a', tags: ['x', 'y'] }));
});
afterEach(() => server.close());

const clientOf = () =>
  new ServiceClient({
    apiKey: freshKey('meta'),
    baseUrl: server.baseUrl,
    rateLimiter: { acquire: async () => undefined },
    preflight: 'off',
  });

const busy = jsonAnswer(503, { message: 'busy' });
const noContent = jsonAnswer(204, undefined);
const frozenSchema = z.object({ id: z.string(), tags: z.array(z.string()) }).readonly();

describe('lastResponse on what request() resolves to', () => {
  it.each([
    ['answered at once', [], 1],
    ['answered after a 503 that was retried', [busy], 2],
  ] as const)('a schema result that zod froze has it, still frozen: %s', async (_, first, attempts) => {
    server.answer(...first);
    const doc = await clientOf().request('PUT', '/v2/doc/1', { body: {}, schema: frozenSchema });
    expect(doc.lastResponse.attempts).toBe(attempts);
    expect(doc.lastResponse.status).toBe(200);
    expect(doc).toEqual({ id: 'a', tags: ['x', 'y'] });
    expect(Object.isFrozen(doc)).toBe(true);
    expect(Object.keys(doc)).toEqual(['id', 'tags']);
    expect(JSON.stringify(doc)).toBe('{"id":"a","tags":["x","y"]}');
    expect(server.arrivals).toHaveLength(attempts);
  });

  it('a frozen array a schema returns has it too, and is still an array', async () => {
    server.answer(busy, jsonAnswer(200, ['x', 'y']));
    const list = await clientOf().request('GET', '/v2/product/list', { schema: z.array(z.string()).readonly() });
    expect(Array.isArray(list)).toBe(true);
    expect([...list]).toEqual(['x', 'y']);
    expect(list.lastResponse.attempts).toBe(2);
    expect(Object.isFrozen(list)).toBe(true);
  });

  it('a sealed object a schema returns has it, and stays sealed, its fields writable (not frozen)', async () => {
    const sealing = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: (value: unknown) => ({ value: Object.seal({ ...(value as object) }) }),
      },
    } as const;
    const doc = await clientOf().request('GET', '/v2/doc/1', { schema: sealing });
    expect(doc.lastResponse.attempts).toBe(1);
    expect([Object.isSealed(doc), Object.isFrozen(doc)]).toEqual([true, false]);
    expect(Object.getOwnPropertyDescriptor(doc, 'id')?.writable).toBe(true);
  });

  it('a schema returning a frozen class instance gets it as it is: no copy that would not be one', async () => {
    class Doc {
      constructor(readonly id: string) {
        Object.freeze(this);
      }
    }
    const schema = z.object({ id: z.string() }).transform((v) => new Doc(v.id));
    const doc = await clientOf().request('GET', '/v2/doc/1', { schema });
    expect(doc).toBeInstanceOf(Doc);
    expect('lastResponse' in doc).toBe(false);
  });

  it.each([
    ['answered at once', [noContent], 1],
    ['after a 503 that was retried', [busy, noContent], 2],
  ] as const)('a 204 resolves undefined (declare T | undefined): %s', async (_, answers, sent) => {
    server.answer(...answers);
    const done = await clientOf().request<{ id: string } | undefined>('DELETE', '/v2/doc/1');
    expect(done).toBeUndefined();
    expect(server.arrivals).toHaveLength(sent);
  });
});

describe('lastResponse, one record per result', () => {
  it('is one frozen record, the same at every read, with the headers as they were answered and not enumerable', async () => {
    const client = clientOf();
    const doc = await client.request<{ id: string }>('GET', '/v2/doc/1');
    const first = doc.lastResponse;
    expect(doc.lastResponse).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.headers)).toBe(true);
    expect(first.status).toBe(200);
    expect(first.attempts).toBe(1);
    expect(first.headers['content-type']).toMatch(/application\/json/);
    expect(Object.keys(doc)).toEqual(['id', 'tags']);
    expect(JSON.stringify(doc)).not.toContain('lastResponse');
    // A caller may freeze the result: the record is still there.
    Object.freeze(doc);
    expect(doc.lastResponse).toBe(first);
  });

  it('an answer that echoes the key in a header never shows it in lastResponse, read late', async () => {
    const apiKey = freshKey('meta-echo-0123456789');
    server.answer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'x-echo': `seen ${apiKey}` });
      response.end(JSON.stringify({ id: 'b' }));
    });
    const client = new ServiceClient({
      apiKey,
      baseUrl: server.baseUrl,
      rateLimiter: { acquire: async () => undefined },
    });
    const doc = await client.request<{ id: string }>('GET', '/v2/doc/2');
    await new Promise((resolve) => setImmediate(resolve));
    expect(doc.lastResponse.headers['x-echo']).not.toContain(apiKey);
    expect(JSON.stringify(doc.lastResponse)).not.toContain(apiKey);
  });
});
