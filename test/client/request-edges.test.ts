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
