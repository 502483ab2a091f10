// Issue 29, item 8 (CPU per request): the runtime's own fetch is given ky's request as a URL and an init, not as a
// Request with an init (from which fetch builds a second Request, taking over the first one's body: more CPU per call
// than ky's own work). The request on the wire stays the same; a partner's `fetch` option still gets ky's Request.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { ServiceClient } from 'invoicing-service-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listenOnLoopback } from '../helpers/loopback.js';
import { freshKey, validModel } from '../helpers/model.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.unstubAllGlobals();
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function recordingServer() {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ success: true, message: 'E-way bill 123456789012 generated' }));
    });
  });
  const { port, close } = await listenOnLoopback(server);
  closers.push(close);
  return { baseUrl: `http://127.0.0.1:${port}/api/partner`, seen };
}

/** What fetch was called with: the type of its first argument, and whether an init came with it. */
function spyOnFetch(inner: typeof globalThis.fetch) {
  const calls: { resource: string; init: boolean }[] = [];
  const spy: typeof globalThis.fetch = (resource, init) => {
    calls.push({ resource: resource instanceof Request ? 'Request' : typeof resource, init: init !== undefined });
    return inner(resource, init);
  };
  return { spy, calls };
}

describe("the runtime's fetch", () => {
  it("gets ky's request as a URL and an init, and the service sees the same request", async () => {
    const { baseUrl, seen } = await recordingServer();
    const { spy, calls } = spyOnFetch(globalThis.fetch);
    vi.stubGlobal('fetch', spy);
    const key = freshKey('runtime-fetch');
    const client = new ServiceClient({
      apiKey: key,
      baseUrl,
      headers: { 'X-Partner': 'erp-1' },
      rateLimiter: { acquire: async () => undefined },
    });
    const model = validModel();
    const result = await client.createEwayBill('doc/1', model, { priority: 'high' });
    expect(result.ewayBillNumber).toBe('123456789012');
    expect(calls).toEqual([{ resource: 'string', init: true }]);
    expect(seen).toHaveLength(1);
    const [request] = seen as [Seen];
    expect([request.method, request.url]).toEqual(['POST', '/api/partner/v2/ewaybill/doc%2F1']);
    expect(JSON.parse(request.body)).toEqual(model);
    expect(request.headers).toMatchObject({
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'x-partner': 'erp-1',
    });
    expect(request.headers['user-agent']).toMatch(/^invoicing-service-sdk\//);
  });

  it("ky's Request carries neither the body nor the headers: the runtime's fetch is given them as they are", async () => {
    const { baseUrl, seen } = await recordingServer();
    // Every Request made in this process while the call runs: ky makes one per attempt (undici's fetch uses its own
    // class, not the global one).
    const made: { method: string; body: boolean; headers: string[] }[] = [];
    const Original = globalThis.Request;
    class RecordingRequest extends Original {
      constructor(input: RequestInfo | URL, init?: RequestInit) {
        super(input, init);
        made.push({ method: this.method, body: this.body !== null, headers: [...this.headers.keys()] });
      }
    }
    vi.stubGlobal('Request', RecordingRequest);
    const key = freshKey('runtime-fetch-bare');
    const client = new ServiceClient({ apiKey: key, baseUrl, rateLimiter: { acquire: async () => undefined } });
    const model = validModel();
    await client.createEwayBill('doc-2', model);
    // Before: ky's Request held the body (a ReadableStream made of the JSON string, never read) and every header.
    expect(made).toEqual([{ method: 'POST', body: false, headers: [] }]);
    const [request] = seen as [Seen];
    expect(JSON.parse(request.body)).toEqual(model);
    expect(request.headers).toMatchObject({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
  });

  it("a fetch option gets ky's whole Request: its method, headers and body", async () => {
    const { baseUrl, seen } = await recordingServer();
    const got: { method: string; contentType: string | null; body: string }[] = [];
    const key = freshKey('custom-fetch-post');
    const client = new ServiceClient({
      apiKey: key,
      baseUrl,
      fetch: async (resource, init) => {
        if (!(resource instanceof Request)) throw new TypeError('expected a Request');
        got.push({
          method: resource.method,
          contentType: resource.headers.get('content-type'),
          body: await resource.clone().text(),
        });
        return globalThis.fetch(resource, init);
      },
      rateLimiter: { acquire: async () => undefined },
    });
    const model = validModel();
    await client.createEwayBill('doc-3', model);
    expect(got).toHaveLength(1);
    expect(got[0]?.method).toBe('POST');
    expect(got[0]?.contentType).toBe('application/json');
    expect(JSON.parse(got[0]?.body ?? '')).toEqual(model);
    expect(JSON.parse((seen as [Seen])[0].body)).toEqual(model);
  });

  it("a fetch option still gets ky's Request", async () => {
    const { baseUrl, seen } = await recordingServer();
    const { spy, calls } = spyOnFetch(globalThis.fetch);
    const client = new ServiceClient({
      apiKey: freshKey('custom-fetch'),
      baseUrl,
      fetch: spy,
      rateLimiter: { acquire: async () => undefined },
    });
    await client.request('GET', '/v2/product/list', { query: { page: 2 } });
    expect(calls).toEqual([{ resource: 'Request', init: true }]);
    expect(seen.map((r) => [r.method, r.url])).toEqual([['GET', '/api/partner/v2/product/list?page=2']]);
  });
});
