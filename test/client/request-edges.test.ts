// Inputs of `client.request` that used to be sent wrongly or refused unclearly: connection headers, query numbers JSON
// would not write, body values JSON.stringify turns into `{}` or `null`, and a schema that throws. Against a real
// node:http server on loopback, which records what arrived.
import { createServer } from 'node:http';
import { ServiceClient, UnexpectedResponseError, ValidationError } from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../helpers/loopback.js';
import { freshKey } from '../helpers/model.js';

let arrivals: { url: string; body: string }[];
let baseUrl: string;
let close: () => Promise<void>;

beforeEach(async () => {
  arrivals = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      arrivals.push({ url: req.url ?? '', body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ hash_id: 'doc_1' }));
    });
  });
  const started = await listenOnLoopback(server);
  baseUrl = `http://127.0.0.1:${started.port}/api/partner`;
  close = started.close;
});
afterEach(() => close());

const clientOf = () =>
  new ServiceClient({
    apiKey: freshKey('edges'),
    baseUrl,
    rateLimiter: { acquire: async () => undefined },
    preflight: 'off',
    maxRetries: 0,
  });

describe('client.request: headers of the connection', () => {
  it.each(['Host', 'Content-Length', 'Transfer-Encoding', 'Connection', 'Keep-Alive', 'Upgrade', 'Expect', 'TE'])(
    'refuses %s with a TypeError naming it, and sends nothing',
    async (name) => {
      const client = clientOf();
      const value = name === 'Content-Length' ? '2' : name === 'Expect' ? '100-continue' : 'x';
      const call = client.request('POST', '/v2/doc', { body: { a: 'hello' }, headers: { [name]: value } });
      await expect(call).rejects.toThrow(TypeError);
      await expect(call).rejects.toThrow(`options.headers.${name} cannot be set`);
      expect(arrivals).toEqual([]);
    },
  );

  it('refuses them in the client options too', () => {
    expect(() => new ServiceClient({ apiKey: freshKey('edges'), baseUrl, headers: { host: 'other.example' } })).toThrow(
      'headers.host cannot be set',
    );
  });

  it('names the header whose value HTTP cannot carry', async () => {
    const client = clientOf();
    await expect(client.request('GET', '/v2/doc', { headers: { 'x-note': 'a\r\nb' } })).rejects.toThrow(
      'request: options.headers["x-note"] cannot be sent: a value must not hold CR, LF or NUL',
    );
    await expect(client.request('GET', '/v2/doc', { headers: { 'x-note': 'Ā' } })).rejects.toThrow(
      'options.headers["x-note"] cannot be sent: a value must be Latin-1 text',
    );
    expect(() => new ServiceClient({ apiKey: freshKey('edges'), baseUrl, headers: { 'x-erp': 'a\nb' } })).toThrow(
      'headers["x-erp"] cannot be sent',
    );
    expect(arrivals).toEqual([]);
  });

  it('still sends the headers a caller may set', async () => {
    const client = clientOf();
    await client.request('GET', '/v2/doc', { headers: { 'Idempotency-Key': 'k1', 'x-note': 'é' } });
    expect(arrivals).toHaveLength(1);
  });
});

describe('client.request: query numbers', () => {
  it.each([NaN, Infinity, -Infinity])('refuses %s (it was sent as its name) and sends nothing', async (value) => {
    const client = clientOf();
    const call = client.request('GET', '/v2/product/list', { query: { page: value } });
    await expect(call).rejects.toThrow(TypeError);
    await expect(call).rejects.toThrow(`options.query.page must be a finite number; got ${String(value)}`);
    await expect(client.request('GET', '/v2/product/list', { query: { page: [1, value] } })).rejects.toThrow(
      'options.query.page must be a finite number',
    );
    expect(arrivals).toEqual([]);
  });

  it('sends finite numbers, -0 as 0, and repeats arrays', async () => {
    await clientOf().request('GET', '/v2/product/list', { query: { page: -0, id: [1, 2], 'tag[]': 'a' } });
    expect(arrivals[0]?.url).toBe('/api/partner/v2/product/list?page=0&id=1&id=2&tag%5B%5D=a');
  });
});

describe('client.request: body values JSON.stringify would lose', () => {
  const issuesOf = async (body: unknown) => {
    const error = await clientOf()
      .request('POST', '/v2/doc', { body })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).issues.map((issue) => `${issue.field}: ${issue.message}`);
  };

  it('refuses a Map, a Set, binary data and a Promise, naming where (they were sent as {})', async () => {
    expect(await issuesOf({ items: new Map([['a', 1]]) })).toEqual([
      'items: a Map would be written as {}; send Object.fromEntries(map)',
    ]);
    expect(await issuesOf({ tags: new Set(['a']) })).toEqual(['tags: a Set would be written as {}; send [...set]']);
    expect((await issuesOf({ file: new Uint8Array([1, 2]) }))[0]).toMatch(/^file: binary data/);
    expect((await issuesOf({ raw: new ArrayBuffer(2) }))[0]).toMatch(/^raw: binary data/);
    expect(await issuesOf({ total: Promise.resolve(1) })).toEqual([
      'total: a Promise would be written as {}; await it first',
    ]);
    expect(arrivals).toEqual([]);
  });

  it('refuses an invalid Date and what a toJSON returns that JSON cannot hold (they were sent as null or no body)', async () => {
    expect(await issuesOf({ on: new Date(Number.NaN) })).toEqual(['on: is an invalid Date, which JSON writes as null']);
    expect(await issuesOf({ amount: { toJSON: () => Number.NaN } })).toEqual(['amount: NaN is not a JSON number']);
    expect(await issuesOf({ toJSON: () => undefined })).toHaveLength(1);
    expect(await issuesOf({ amount: new Number(Number.POSITIVE_INFINITY) })).toEqual([
      'amount: Infinity is not a JSON number',
    ]);
    expect(arrivals).toEqual([]);
  });

  it('names the field whose getter or toJSON throws', async () => {
    const body = {
      ok: 1,
      get broken(): never {
        throw new Error('boom');
      },
      nested: {
        toJSON: (): never => {
          throw new Error('bad toJSON');
        },
      },
    };
    expect(await issuesOf(body)).toEqual(['broken: could not be read: boom', 'nested: its toJSON() threw: bad toJSON']);
  });

  it('sends a Date, a Buffer, class instances and a toJSON result as JSON.stringify writes them, calling toJSON once', async () => {
    let calls = 0;
    const body = {
      on: new Date(0),
      buffer: Buffer.from('ab'),
      money: {
        toJSON: () => {
          calls++;
          return '12.50';
        },
      },
      item: new (class Item {
        readonly qty = 2;
      })(),
      __proto__: null,
    };
    await clientOf().request('POST', '/v2/doc', { body });
    expect(calls).toBe(1);
    expect(JSON.parse(arrivals[0]?.body ?? '')).toEqual({
      on: '1970-01-01T00:00:00.000Z',
      buffer: { type: 'Buffer', data: [97, 98] },
      money: '12.50',
      item: { qty: 2 },
    });
  });
});

describe('client.request: a schema that throws or returns no result', () => {
  const schemaOf = (validate: (value: unknown) => unknown) =>
    ({ '~standard': { version: 1, vendor: 'test', validate } }) as never;

  it.each([
    [
      'throws',
      () => {
        throw new Error('schema bug');
      },
      'options.schema threw',
    ],
    [
      'rejects',
      async () => {
        throw new Error('async bug');
      },
      'options.schema threw',
    ],
    ['returns undefined', () => undefined, 'options.schema returned no result'],
    ['returns issues that are not an array', () => ({ issues: 'bad' }), 'options.schema returned no result'],
  ])(
    'a schema that %s: UnexpectedResponseError, the 2xx kept and mayHaveSucceeded true (it was the raw error)',
    async (_, validate, why) => {
      const error = await clientOf()
        .request('POST', '/v2/doc', { body: {}, schema: schemaOf(validate) })
        .catch((e: unknown) => e);
      expect(arrivals).toHaveLength(1);
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect(error).toMatchObject({ status: 200, mayHaveSucceeded: true, body: { hash_id: 'doc_1' } });
      expect((error as Error).message).toContain(why);
    },
  );

  it('an async schema that passes gives its value', async () => {
    const value = await clientOf().request('GET', '/v2/doc', { schema: schemaOf(async () => ({ value: { ok: 1 } })) });
    expect(value).toEqual({ ok: 1 });
  });
});
