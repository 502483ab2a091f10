// Issue 28, item 2: a 2xx answer is never `undefined`. A 200 `text/html` (a proxy's login page), truncated JSON and a
// valid 2.2 MiB JSON answer (cut at 1 MiB without a word) all resolved `undefined`; with a schema, the cut answer read
// "does not match the schema". Now valid JSON up to `maxResponseBytes` (10 MiB) comes whole, anything else in a 2xx is
// an `UnexpectedResponseError` that says the service may have acted, and only an empty 2xx body resolves `undefined`.
// Against a real node:http server on loopback.
import type { ServerResponse } from 'node:http';
import {
  ApiError,
  ServerError,
  ServiceClient,
  type ServiceClientOptions,
  UnexpectedResponseError,
} from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Answer, jsonAnswer, startAnswerServer } from '../helpers/answer-server.js';
import { freshKey, validModel } from '../helpers/model.js';

let server: Awaited<ReturnType<typeof startAnswerServer>>;

beforeEach(async () => {
  server = await startAnswerServer();
});
afterEach(() => server.close());

const MiB = 1024 * 1024;

const clientOf = (options: ServiceClientOptions = {}) =>
  new ServiceClient({
    apiKey: freshKey('answers'),
    baseUrl: server.baseUrl,
    rateLimiter: { acquire: async () => undefined },
    preflight: 'off',
    maxRetries: 0,
    ...options,
  });

const rawAnswer =
  (status: number, body: string | Buffer, headers: Record<string, string>): Answer =>
  (_req, res) => {
    res.writeHead(status, headers).end(body);
  };

/** A JSON document of about `bytes` bytes: an object whose `items` are many small records. */
function bigJson(bytes: number): { items: { id: number; note: string }[] } {
  const items: { id: number; note: string }[] = [];
  for (let id = 0; items.length * 40 < bytes; id++) items.push({ id, note: `line ${id} ${'x'.repeat(16)}` });
  return { items };
}

/** Writes a 2xx (or any status) body without end, respecting back-pressure, until the client goes away. */
const endless =
  (status: number, contentType: string): Answer =>
  (_req, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': contentType });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    res.write('{"items":"');
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) {}
    };
    res.on('drain', pump);
    pump();
  };

const failureOf = (call: Promise<unknown>) =>
  call.then(
    () => 'resolved',
    (error: unknown) => error,
  );

describe('request(): a 2xx whose body is not a JSON answer is an UnexpectedResponseError, never undefined', () => {
  it("a 200 text/html (a proxy's login page): status, contentType, bodyBytes, mayHaveSucceeded (it resolved undefined)", async () => {
    const page = '<!doctype html><title>Sign in — proxy</title><form action="/login"></form>';
    server.answer(rawAnswer(200, page, { 'content-type': 'text/html; charset=utf-8' }));
    const error = await failureOf(clientOf().request('GET', '/v2/doc/1'));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      code: 'UNEXPECTED_RESPONSE',
      reason: 'not-json',
      status: 200,
      contentType: 'text/html; charset=utf-8',
      bodyBytes: Buffer.byteLength(page),
      mayHaveSucceeded: true,
      body: page,
      issues: [],
    });
    expect((error as Error).message).toBe(
      `The service answered HTTP 200 with a body that is not JSON (text/html; charset=utf-8, ${Buffer.byteLength(page)} bytes): ${page}; it may have acted on the request`,
    );
  });

  it('truncated JSON that ended cleanly (it resolved undefined)', async () => {
    server.answer(rawAnswer(201, '{"hash_id":"doc_1","items":[1,2', { 'content-type': 'application/json' }));
    const error = await failureOf(clientOf().request('POST', '/v2/doc', { body: {} }));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({ reason: 'not-json', status: 201, bodyBytes: 31, mayHaveSucceeded: true });
  });

  it('only a body of no bytes resolves undefined (204, or 200 with Content-Length 0); whitespace is not JSON', async () => {
    server.answer(
      rawAnswer(204, '', {}),
      rawAnswer(200, '', { 'content-type': 'application/json' }),
      rawAnswer(200, ' \n', { 'content-type': 'application/json' }),
    );
    const client = clientOf();
    expect(await client.request('DELETE', '/v2/doc/1')).toBeUndefined();
    expect(await client.request('PUT', '/v2/doc/1', { body: {} })).toBeUndefined();
    await expect(client.request('GET', '/v2/doc/1')).rejects.toMatchObject({ reason: 'not-json', bodyBytes: 2 });
  });

  it('JSON answers that are not objects are returned as they are: null, numbers, strings, arrays', async () => {
    server.answer(jsonAnswer(200, null), jsonAnswer(200, 7), jsonAnswer(200, 'ok'), jsonAnswer(200, [1, 2]));
    const client = clientOf();
    expect(await client.request('GET', '/a')).toBeNull();
    expect(await client.request('GET', '/b')).toBe(7);
    expect(await client.request('GET', '/c')).toBe('ok');
    expect(await client.request('GET', '/d')).toEqual([1, 2]);
  });
});

describe('request(): answers up to maxResponseBytes (10 MiB by default) come whole', () => {
  it('a valid 2.2 MiB JSON answer is returned whole (it was cut at 1 MiB and resolved undefined)', async () => {
    const doc = bigJson(2.2 * MiB);
    const text = JSON.stringify(doc);
    expect(text.length).toBeGreaterThan(2.2 * MiB);
    server.answer(rawAnswer(200, text, { 'content-type': 'application/json' }));
    const result = await clientOf().request<typeof doc>('GET', '/v2/product/list');
    expect(result.items).toHaveLength(doc.items.length);
    expect(result.items.at(-1)).toEqual(doc.items.at(-1));
  });

  it('with a schema, the 2.2 MiB answer passes it (it read "does not match the schema")', async () => {
    const doc = bigJson(2.2 * MiB);
    server.answer(jsonAnswer(200, doc));
    const schema = z.object({ items: z.array(z.object({ id: z.number(), note: z.string() })) });
    const result = await clientOf().request('GET', '/v2/product/list', { schema });
    expect(result.items).toHaveLength(doc.items.length);
  });

  it('an answer over the cap is UnexpectedResponseError reason too-large, also with a schema, which is not run', async () => {
    const doc = bigJson(2.2 * MiB);
    server.answer(jsonAnswer(200, doc), jsonAnswer(200, doc));
    let schemaRan = false;
    const schema = z.unknown().refine(() => {
      schemaRan = true;
      return true;
    });
    const client = clientOf({ maxResponseBytes: MiB });
    for (const options of [{}, { schema }]) {
      const error = await failureOf(client.request('GET', '/v2/product/list', options));
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect(error).toMatchObject({
        reason: 'too-large',
        status: 200,
        contentType: 'application/json',
        mayHaveSucceeded: true,
      });
      expect((error as UnexpectedResponseError).bodyBytes).toBeGreaterThan(MiB);
      expect((error as Error).message).toContain(
        'with a body larger than maxResponseBytes (1048576 bytes); it may have acted on the request. Raise maxResponseBytes',
      );
      // What the error keeps of the body is bounded (64 KiB of text), whatever the cap.
      expect(String((error as UnexpectedResponseError).body).length).toBeLessThanOrEqual(64 * 1024);
    }
    expect(schemaRan).toBe(false);
  });

  it('the cap is inclusive: a body of exactly maxResponseBytes comes whole, one byte more is too-large', async () => {
    const body = JSON.stringify({ note: 'é'.repeat(500) });
    const bytes = Buffer.byteLength(body);
    server.answer(jsonAnswer(200, JSON.parse(body)), jsonAnswer(200, JSON.parse(body)));
    const client = clientOf();
    expect(await client.request('GET', '/a', { maxResponseBytes: bytes })).toEqual(JSON.parse(body));
    await expect(client.request('GET', '/a', { maxResponseBytes: bytes - 1 })).rejects.toMatchObject({
      reason: 'too-large',
      bodyBytes: bytes,
    });
  });

  it('the call option overrides the client option', async () => {
    const doc = bigJson(2.2 * MiB);
    server.answer(jsonAnswer(200, doc));
    const result = await clientOf({ maxResponseBytes: MiB }).request<typeof doc>('GET', '/v2/product/list', {
      maxResponseBytes: 4 * MiB,
    });
    expect(result.items).toHaveLength(doc.items.length);
  });

  it('an endless 2xx body ends the call at the 10 MiB default with too-large; the connection is let go', async () => {
    server.answer(endless(200, 'application/json'));
    const error = await failureOf(clientOf().request('GET', '/v2/export'));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({ reason: 'too-large', status: 200, mayHaveSucceeded: true });
    expect((error as UnexpectedResponseError).bodyBytes).toBeGreaterThan(10 * MiB);
  });

  it.each([
    [0, 'got 0'],
    [-1, 'got -1'],
    [1.5, 'got 1.5'],
    ['10', "got '10'"],
    [Number.NaN, 'got NaN'],
    [2 ** 40, `got ${2 ** 40}`],
  ])('maxResponseBytes %s is a TypeError naming the option, as a client and as a call option', async (value, got) => {
    const message = 'maxResponseBytes must be a whole number of bytes from 1 to 268435456 (256 MiB)';
    expect(() => clientOf({ maxResponseBytes: value as number })).toThrow(`${message}; ${got}`);
    await expect(clientOf().request('GET', '/a', { maxResponseBytes: value as number })).rejects.toThrow(
      `options.${message}; ${got}`,
    );
    expect(server.arrivals).toEqual([]);
  });
});

describe('error answers keep their cap and their mapping', () => {
  it('an endless 503 page is still a ServerError, its kept body bounded, and the call ends', async () => {
    server.answer(endless(503, 'text/html'));
    const error = await failureOf(clientOf().request('GET', '/v2/doc/1'));
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ status: 503, mayHaveSucceeded: true });
    expect(String((error as ServerError).body).length).toBeLessThanOrEqual(64 * 1024);
  });

  it('a 400 error envelope is still mapped by its error_code', async () => {
    server.answer(jsonAnswer(400, { success: false, error_code: 'INVALID_HASH_ID', message: 'no such doc' }));
    await expect(clientOf().request('GET', '/v2/doc/1')).rejects.toMatchObject({ code: 'INVALID_HASH_ID' });
  });
});

describe('createEwayBill: an unreadable 2xx says the bill may exist', () => {
  it('a 200 text/html is an UnexpectedResponseError with mayHaveSucceeded true (it was a plain ApiError)', async () => {
    server.answer(rawAnswer(200, '<html>signed out</html>', { 'content-type': 'text/html' }));
    const error = await failureOf(clientOf().createEwayBill('doc_1', validModel()));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({ reason: 'not-json', status: 200, contentType: 'text/html', mayHaveSucceeded: true });
  });

  it('an empty 200 and an answer over the cap too', async () => {
    server.answer(rawAnswer(200, '', {}), jsonAnswer(200, { success: true, message: 'x'.repeat(2 * MiB) }));
    const client = clientOf({ maxResponseBytes: MiB });
    await expect(client.createEwayBill('doc_1', validModel())).rejects.toMatchObject({
      code: 'UNEXPECTED_RESPONSE',
      reason: 'not-json',
      bodyBytes: 0,
      mayHaveSucceeded: true,
    });
    await expect(client.createEwayBill('doc_2', validModel())).rejects.toMatchObject({
      code: 'UNEXPECTED_RESPONSE',
      reason: 'too-large',
      mayHaveSucceeded: true,
    });
  });

  it('a JSON 200 without success: true is still the ApiError it was', async () => {
    server.answer(jsonAnswer(200, { done: 'maybe' }));
    const error = await failureOf(clientOf().createEwayBill('doc_1', validModel()));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).not.toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({ code: 'API_ERROR', mayHaveSucceeded: true });
  });
});
