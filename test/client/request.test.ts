// Issue 18: the whole API through one client. `client.request` under the same key, budget, retries and errors as
// createEwayBill; key rotation; answers with their metadata. Against a real node:http server on loopback.
import { createServer, type IncomingMessage } from 'node:http';
import {
  createProcessRateLimiter,
  ServerError,
  ServiceClient,
  UnauthorizedError,
  UnexpectedResponseError,
  ValidationError,
} from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listenOnLoopback } from '../helpers/loopback.js';
import { freshKey, validModel } from '../helpers/model.js';
import { type Send, stampingFetch } from '../helpers/send-times.js';
import { expectSpacedAt } from '../helpers/spacing.js';

interface Arrival {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  readonly at: number;
}

type Reply = { status: number; body: unknown; headers?: Record<string, string> };

let arrivals: Arrival[];
let replies: Reply[];
let validKeys: Set<string>;
let onRefused: () => void;
let baseUrl: string;
let close: () => Promise<void>;

beforeEach(async () => {
  arrivals = [];
  replies = [];
  validKeys = new Set();
  onRefused = () => {};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      arrivals.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      const key = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      if (validKeys.size > 0 && !validKeys.has(key)) {
        onRefused();
        res.writeHead(401, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ success: false, error_code: 'UNAUTHORIZED', message: 'key refused' }));
      }
      const reply = replies.shift() ?? {
        status: 200,
        body: { success: true, message: 'E-way bill 331000123456 generated', hash_id: 'doc_new' },
      };
      res.writeHead(reply.status, { 'content-type': 'application/json', 'x-request-id': 'req_42', ...reply.headers });
      res.end(JSON.stringify(reply.body));
    });
  });
  const started = await listenOnLoopback(server);
  baseUrl = `http://127.0.0.1:${started.port}/api/partner`;
  close = started.close;
});
afterEach(() => close());

const noWait = { acquire: async () => undefined };
const clientOf = (options: ConstructorParameters<typeof ServiceClient>[0] = {}) =>
  new ServiceClient({ apiKey: freshKey('req'), baseUrl, rateLimiter: noWait, preflight: 'off', ...options });

describe('client.request(method, path, options)', () => {
  it('sends GET and POST under the base URL with the key, a JSON body and a query', async () => {
    const client = clientOf({ apiKey: 'sk_request_word' });
    const doc = await client.request<{ hash_id: string }>('POST', '/v2/doc', { body: { serial_number: 'INV-1' } });
    expect(doc.hash_id).toBe('doc_new');
    await client.request('GET', '/v2/product/list', { query: { page: 2, tag: ['a', 'b'], skip: undefined } });
    expect(arrivals.map((a) => `${a.method} ${a.url}`)).toEqual([
      'POST /api/partner/v2/doc',
      'GET /api/partner/v2/product/list?page=2&tag=a&tag=b',
    ]);
    expect(arrivals[0]?.authorization).toBe('Bearer sk_request_word');
    expect(arrivals[0]?.contentType).toBe('application/json');
    expect(arrivals[0]?.body).toBe('{"serial_number":"INV-1"}');
    expect(arrivals[1]?.contentType).toBeUndefined();
  });

  it('createEwayBill and request calls interleaved on one key arrive a second apart (one budget)', async () => {
    const sends: Send[] = [];
    const client = clientOf({ rateLimiter: createProcessRateLimiter(), fetch: stampingFetch(sends) });
    await Promise.all([
      client.createEwayBill('doc_1', validModel()),
      client.request('POST', '/v2/doc', { body: {} }),
      client.request('GET', '/v2/product/list'),
      client.createEwayBill('doc_2', validModel()),
    ]);
    expect(arrivals).toHaveLength(4);
    // Sent a second apart (Date.now() when the SDK handed each to fetch), none arriving before it was sent. Without
    // the shared budget the sends would be a few milliseconds apart.
    expectSpacedAt(
      sends.map((send) => send.at),
      arrivals.map((arrival) => arrival.at),
      1000,
    );
  });

  const refused = [
    'https://evil.example/v2/doc',
    '//evil.example/v2/doc',
    'v2/doc',
    '/v2\\doc',
    '/v2/%5Cdoc',
    '/v2/../../evil',
    '/v2/%2e%2e/evil',
    '/v2/.%2E/evil',
    '/./v2/doc',
    '/v2/%2E/doc',
    '/v2%2fdoc',
    '/v2/doc?x=1',
    '/v2/doc#frag',
    '/v2/ doc',
    '/v2/%zz',
  ];
  it.each(refused)('refuses the path %j with a TypeError and sends nothing', async (path) => {
    const error = await clientOf()
      .request('GET', path)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/^request: path /);
    expect(arrivals).toHaveLength(0);
  });

  it('refuses a bad method, headers the SDK owns, and a body JSON cannot hold, before sending', async () => {
    const client = clientOf();
    await expect(client.request('TRACE' as never, '/v2/doc')).rejects.toThrow(/method must be one of GET, POST/);
    for (const name of ['Authorization', 'content-type', 'ACCEPT']) {
      await expect(client.request('GET', '/v2/doc', { headers: { [name]: 'x' } })).rejects.toThrow(/cannot be set/);
    }
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const [body, where] of [
      [{ amount: 10n }, 'amount'],
      [{ rate: Number.NaN }, 'rate'],
      [{ lines: [1, undefined] }, 'lines.1'],
      [cyclic, 'self'],
      [{ run: () => 1 }, 'run'],
    ] as const) {
      const error = await client.request('POST', '/v2/doc', { body }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues[0]?.field).toBe(where);
    }
    expect(arrivals).toHaveLength(0);
  });

  it('retries an idempotent GET after a 503 (2 requests), never a POST after a 500 (1 request)', async () => {
    const client = clientOf();
    replies.push({ status: 503, body: { success: false, message: 'busy' } }, { status: 200, body: { products: [] } });
    await expect(client.request('GET', '/v2/product/list')).resolves.toEqual({ products: [] });
    expect(arrivals).toHaveLength(2);
    replies.push({ status: 500, body: { success: false, message: 'oops' } });
    const error = await client.request('POST', '/v2/doc', { body: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).mayHaveSucceeded).toBe(true);
    expect(arrivals).toHaveLength(3);
  });

  it('checks and types the answer with a Standard Schema (zod), and refuses an answer of another shape', async () => {
    const client = clientOf();
    const Doc = z.object({ hash_id: z.string() });
    const doc = await client.request('POST', '/v2/doc', { body: {}, schema: Doc });
    expect(doc.hash_id).toBe('doc_new');
    replies.push({ status: 201, body: { id: 7 } });
    const error = await client.request('POST', '/v2/doc', { body: {}, schema: Doc }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as UnexpectedResponseError).issues[0]?.field).toBe('hash_id');
    expect((error as UnexpectedResponseError).mayHaveSucceeded).toBe(true);
  });

  it('maps the error envelope of any endpoint to the typed errors', async () => {
    replies.push({ status: 401, body: { success: false, error_code: 'UNAUTHORIZED', message: 'no' } });
    await expect(clientOf().request('GET', '/v2/product/list')).rejects.toBeInstanceOf(UnauthorizedError);
  });
});

describe('answers with their metadata', () => {
  it('createEwayBill gives the e-way bill number, status, headers and request id; JSON is unchanged', async () => {
    const result = await clientOf().createEwayBill('doc_1', validModel());
    expect(result.ewayBillNumber).toBe('331000123456');
    expect(result.lastResponse).toMatchObject({ status: 200, requestId: 'req_42' });
    expect(result.lastResponse?.headers['content-type']).toBe('application/json');
    expect(JSON.stringify(result)).toBe(
      '{"success":true,"message":"E-way bill 331000123456 generated","ewayBillNumber":"331000123456"}',
    );
    expect(Object.keys(result)).toEqual(['success', 'message', 'ewayBillNumber']);
  });

  it('never guesses a bill number: none, or two 12-digit numbers, give undefined', async () => {
    replies.push({ status: 200, body: { success: true, message: 'done' } });
    replies.push({ status: 200, body: { success: true, message: 'bills 331000123456 and 331000123457' } });
    replies.push({ status: 200, body: { success: true, message: 'ref 1331000123456' } });
    for (let i = 0; i < 3; i++) {
      const result = await clientOf().createEwayBill(`doc_${i}`, validModel());
      expect(result.ewayBillNumber).toBeUndefined();
      expect(JSON.stringify(result)).not.toMatch(/ewayBillNumber/);
    }
  });

  it('request results and errors carry the request id too', async () => {
    const list = await clientOf().request<{ success: boolean }>('GET', '/v2/product/list');
    expect((list as unknown as { lastResponse: { requestId: string } }).lastResponse.requestId).toBe('req_42');
    replies.push({ status: 400, body: { success: false, error_code: 'INVALID_HASH_ID', message: 'no doc' } });
    const error = await clientOf()
      .createEwayBill('doc_x', validModel())
      .catch((e: unknown) => e);
    expect((error as { requestId: string }).requestId).toBe('req_42');
  });
});

describe('key rotation', () => {
  it('a key rotated while calls are queued: the refused call is sent once more with the new key, spacing kept', async () => {
    let current = 'sk_rotate_old';
    const sends: Send[] = [];
    validKeys.add('sk_rotate_old');
    const client = new ServiceClient({
      apiKey: () => current,
      rateLimitKey: 'company-42',
      baseUrl,
      rateLimiter: createProcessRateLimiter({ interval: 400, margin: 0 }),
      preflight: 'off',
      fetch: stampingFetch(sends),
    });
    await client.createEwayBill('doc_0', validModel());
    // The key is regenerated in the dashboard: the old one is refused from now on, and the partner's secret store
    // has the new one by the time the first refusal arrives.
    validKeys.clear();
    validKeys.add('sk_rotate_new');
    onRefused = () => {
      current = 'sk_rotate_new';
    };
    await Promise.all([client.createEwayBill('doc_1', validModel()), client.createEwayBill('doc_2', validModel())]);
    const of = (doc: string) => arrivals.filter((a) => a.url.endsWith(`/${doc}`));
    expect(of('doc_1').map((a) => a.authorization)).toEqual(['Bearer sk_rotate_old', 'Bearer sk_rotate_new']);
    // doc_2 read its key before it queued (issue 28: the key is one of the budgets it waits for), so it went with the
    // old key too, and once more with the new one after its refusal.
    expect(of('doc_2').map((a) => a.authorization)).toEqual(['Bearer sk_rotate_old', 'Bearer sk_rotate_new']);
    // One budget (rateLimitKey) across the rotation: every send, old key or new, is spaced.
    expectSpacedAt(
      sends.map((send) => send.at),
      arrivals.map((arrival) => arrival.at),
      400,
    );
  });

  it('cancelled while the refused key is read once more: an AbortError, one request sent, none acted', async () => {
    // Review of issue 28, finding 11: the README says so (an AbortError also ends a call cancelled while it waits to
    // try again after an answer that proves nothing was done).
    validKeys.add('sk_reread_valid');
    const controller = new AbortController();
    let reads = 0;
    const client = new ServiceClient({
      apiKey: () => {
        reads += 1;
        if (reads === 1) return 'sk_reread_old';
        // The re-read after the 401: the caller cancels while the partner's secret store is being read.
        controller.abort();
        return new Promise<string>(() => {});
      },
      baseUrl,
      preflight: 'off',
      rateLimiter: createProcessRateLimiter({ interval: 1, margin: 0 }),
    });
    const error = await client
      .createEwayBill('doc_reread', validModel(), { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DOMException);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(arrivals.map((a) => a.authorization)).toEqual(['Bearer sk_reread_old']);
    expect(reads).toBe(2);
  });

  it('a refused key that did not change is not sent again', async () => {
    validKeys.add('sk_valid_only');
    let reads = 0;
    const client = clientOf({
      apiKey: () => {
        reads += 1;
        return 'sk_revoked_word';
      },
    });
    await expect(client.createEwayBill('doc_1', validModel())).rejects.toBeInstanceOf(UnauthorizedError);
    expect(arrivals).toHaveLength(1);
    expect(reads).toBe(2);
  });

  it('a key function that throws or returns no key is a TypeError that never shows the key', async () => {
    const throwing = clientOf({
      apiKey: () => {
        throw new Error('vault down');
      },
    });
    await expect(throwing.createEwayBill('doc_1', validModel())).rejects.toThrow(/key function threw/);
    const blank = clientOf({ apiKey: async () => '  ' });
    await expect(blank.request('GET', '/v2/product/list')).rejects.toThrow(/key function's result is empty/);
    const spaced = clientOf({ apiKey: () => 'sk secret word' });
    const error = await spaced.request('GET', '/v2/product/list').catch((e: unknown) => e);
    expect(String((error as Error).message)).not.toMatch(/secret/);
    expect(arrivals).toHaveLength(0);
  });

  it('the key returned by the function is redacted from errors', async () => {
    replies.push({ status: 400, body: { success: false, message: 'bad key sk_rotating_echo' } });
    const error = await clientOf({ apiKey: () => 'sk_rotating_echo' })
      .request('GET', '/v2/product/list')
      .catch((e: unknown) => e);
    expect(JSON.stringify(error)).not.toMatch(/sk_rotating_echo/);
    expect((error as Error).message).not.toMatch(/sk_rotating_echo/);
  });
});
