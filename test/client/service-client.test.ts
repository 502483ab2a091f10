import { inspect } from 'node:util';
import { SDK_VERSION, ServiceClient, type ServiceClientOptions } from 'invoicing-service-sdk';
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordingFetch } from '../helpers/fake-fetch.js';
import { freshKey, validModel } from '../helpers/model.js';
import { BASE_URL, useMswServer } from '../helpers/msw.js';

const server = useMswServer();

afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

describe('new ServiceClient(options)', () => {
  it('reads the API key and base URL from SERVICE_API_KEY and SERVICE_BASE_URL', async () => {
    const key = freshKey('env');
    vi.stubEnv('SERVICE_API_KEY', key);
    vi.stubEnv('SERVICE_BASE_URL', 'https://env.example/api/partner/');
    const { fetch, calls } = recordingFetch();
    const client = new ServiceClient({ fetch });
    await client.createEwayBill('doc', validModel());
    expect(calls[0]?.url).toBe('https://env.example/api/partner/v2/ewaybill/doc');
    expect(calls[0]?.headers.get('authorization')).toBe(`Bearer ${key}`);
  });

  it('throws a TypeError naming the apiKey option and SERVICE_API_KEY when the key is missing', () => {
    vi.stubEnv('SERVICE_API_KEY', '');
    expect(() => new ServiceClient({ baseUrl: BASE_URL })).toThrow(TypeError);
    expect(() => new ServiceClient({ baseUrl: BASE_URL })).toThrow(/apiKey option.*SERVICE_API_KEY/);
  });

  it('throws a TypeError naming the baseUrl option and SERVICE_BASE_URL when the base URL is missing', () => {
    vi.stubEnv('SERVICE_BASE_URL', '');
    expect(() => new ServiceClient({ apiKey: freshKey() })).toThrow(/baseUrl option.*SERVICE_BASE_URL/);
  });

  it.each([
    ['not a url', /absolute http\(s\) URL/],
    ['ftp://host/api', /https/],
    ['https://host/api?x=1', /query/],
    ['https://user:pw@host/api', /credentials/],
  ])('rejects the base URL %j with a TypeError', (baseUrl, message) => {
    expect(() => new ServiceClient({ apiKey: freshKey(), baseUrl })).toThrow(message);
  });

  it.each([
    [{ timeout: 0 }, /timeout/],
    [{ timeout: Number.NaN }, /timeout/],
    [{ maxRetries: -1 }, /maxRetries/],
    [{ maxRetries: 1.5 }, /maxRetries/],
    [{ apiKey: 'has space' }, /whitespace/],
    [{ rateLimiter: {} }, /rateLimiter must be an object with an acquire/],
    [{ headers: 'x' }, /headers must be an object/],
    [{ headers: { 'x-n': 5 } }, /headers must be an object/],
    [{ logger: 5 }, /logger must have debug\(\) and warn\(\)/],
    [{ hooks: 5 }, /hooks must be an object of callbacks/],
    [{ hooks: { onRequest: 'no' } }, /onRequest is not a function/],
  ] as [Record<string, unknown>, RegExp][])(
    'rejects the option %o with a TypeError that names it',
    (option, message) => {
      // Options as plain JavaScript callers may pass them, past the types.
      const options = { apiKey: freshKey(), baseUrl: BASE_URL, ...option } as ServiceClientOptions;
      expect(() => new ServiceClient(options)).toThrow(TypeError);
      expect(() => new ServiceClient(options)).toThrow(message);
    },
  );

  it('works the same with and without a trailing slash on the base URL', async () => {
    const { fetch, calls } = recordingFetch();
    await new ServiceClient({ apiKey: freshKey(), baseUrl: `${BASE_URL}/`, fetch }).createEwayBill('a', validModel());
    await new ServiceClient({ apiKey: freshKey(), baseUrl: BASE_URL, fetch }).createEwayBill('a', validModel());
    expect(calls.map((c) => c.url)).toEqual([`${BASE_URL}/v2/ewaybill/a`, `${BASE_URL}/v2/ewaybill/a`]);
  });

  it('never shows the API key in JSON.stringify or util.inspect output', () => {
    const key = freshKey('secret');
    const client = new ServiceClient({ apiKey: key, baseUrl: BASE_URL });
    expect(JSON.stringify(client)).not.toContain(key);
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(key);
    expect(JSON.stringify(client)).toContain('[redacted]');
  });

  it('refuses to start in a browser unless dangerouslyAllowBrowser is set', () => {
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
    expect(() => new ServiceClient({ apiKey: freshKey(), baseUrl: BASE_URL })).toThrow(/browser/);
    expect(
      () => new ServiceClient({ apiKey: freshKey(), baseUrl: BASE_URL, dangerouslyAllowBrowser: true }),
    ).not.toThrow();
  });

  it("refuses to start in a browser's Web Worker too, unless dangerouslyAllowBrowser is set", () => {
    vi.stubGlobal('importScripts', () => {});
    expect(() => new ServiceClient({ apiKey: freshKey(), baseUrl: BASE_URL })).toThrow(/refuses to run in a browser/);
    expect(
      () => new ServiceClient({ apiKey: freshKey(), baseUrl: BASE_URL, dangerouslyAllowBrowser: true }),
    ).not.toThrow();
  });
});

describe('client.createEwayBill(docHashId, model)', () => {
  it('POSTs the model as JSON to {baseUrl}/v2/ewaybill/{docHashId} with the spec headers', async () => {
    const key = freshKey();
    let seen: Request | undefined;
    let body: unknown;
    server.use(
      http.post(`${BASE_URL}/v2/ewaybill/:id`, async ({ request }) => {
        seen = request.clone();
        body = await request.json();
        return HttpResponse.json({ success: true, message: 'E-way bill generated' });
      }),
    );
    const client = new ServiceClient({
      apiKey: key,
      baseUrl: BASE_URL,
      headers: { 'X-Partner': 'erp-1' },
    });
    const result = await client.createEwayBill('inv_123', validModel());
    expect(result).toEqual({ success: true, message: 'E-way bill generated' });
    expect(body).toEqual(validModel());
    expect(seen?.headers.get('authorization')).toBe(`Bearer ${key}`);
    expect(seen?.headers.get('content-type')).toBe('application/json');
    expect(seen?.headers.get('accept')).toBe('application/json');
    expect(seen?.headers.get('user-agent')).toBe(`invoicing-service-sdk/${SDK_VERSION} node/${process.versions.node}`);
    expect(seen?.headers.get('x-partner')).toBe('erp-1');
  });

  it.each([
    ['a/b', 'a%2Fb'],
    ['a b?c#d', 'a%20b%3Fc%23d'],
    ['%2F', '%252F'],
    ['हैश', '%E0%A4%B9%E0%A5%88%E0%A4%B6'],
  ])('sends the docHashId %j as one path segment', async (docHashId, segment) => {
    const { fetch, calls } = recordingFetch();
    await new ServiceClient({ apiKey: freshKey(), baseUrl: BASE_URL, fetch }).createEwayBill(docHashId, validModel());
    expect(calls[0]?.url).toBe(`${BASE_URL}/v2/ewaybill/${segment}`);
  });

  it('resolves with an empty message when the success answer has none', async () => {
    const { fetch } = recordingFetch(Response.json({ success: true }));
    await expect(
      new ServiceClient({ apiKey: freshKey(), baseUrl: BASE_URL, fetch }).createEwayBill('a', validModel()),
    ).resolves.toEqual({
      success: true,
      message: '',
    });
  });
});

describe('hardening', () => {
  it("refuses a client-level header the SDK owns, in any case, as a call-level one is; a User-Agent is added after the SDK's", async () => {
    // Issue 29 item 2: one rule at both levels. Before, a client-level Authorization, Content-Type or Accept was dropped
    // in silence while a call-level one threw.
    for (const name of ['authorization', 'Authorization', 'content-type', 'ACCEPT']) {
      expect(
        () => new ServiceClient({ apiKey: freshKey('headers'), baseUrl: BASE_URL, headers: { [name]: 'x' } }),
      ).toThrow(new TypeError(`headers.${name} cannot be set: the SDK sets Authorization, Content-Type and Accept`));
    }
    const { fetch, calls } = recordingFetch();
    const client = new ServiceClient({
      apiKey: freshKey('headers'),
      baseUrl: BASE_URL,
      fetch,
      headers: { 'user-agent': 'erp/1.0' },
    });
    await client.createEwayBill('doc', validModel());
    const headers = calls[0]?.headers;
    expect(headers?.get('authorization')).toMatch(/^Bearer sk_headers_/);
    expect(headers?.get('content-type')).toBe('application/json');
    expect(headers?.get('accept')).toBe('application/json');
    expect(headers?.get('user-agent')).toMatch(/^invoicing-service-sdk\/\S+ node\/\S+ erp\/1\.0$/);
  });

  it.each([1500.5, 2_147_483_647])('accepts the timeout %d (whole milliseconds are used)', async (timeout) => {
    const { fetch, calls } = recordingFetch();
    await new ServiceClient({ apiKey: freshKey(), baseUrl: BASE_URL, fetch, timeout }).createEwayBill(
      'd',
      validModel(),
    );
    expect(calls).toHaveLength(1);
  });

  it('rejects a timeout longer than a timer can hold', () => {
    expect(() => new ServiceClient({ apiKey: freshKey(), baseUrl: BASE_URL, timeout: 3_000_000_000 })).toThrow(
      /timeout must be/,
    );
  });

  it('scrubs the API key from an answer that reflects it (an echo page, a proxy)', async () => {
    const key = freshKey('reflected');
    const { fetch } = recordingFetch(
      new Response(`<html>you sent Authorization: Bearer ${key}</html>`, { status: 502, headers: { 'x-echo': key } }),
    );
    const client = new ServiceClient({ apiKey: key, baseUrl: BASE_URL, fetch, maxRetries: 0 });
    const error = await client.createEwayBill('d', validModel()).catch((e: unknown) => e);
    const outputs = [String(error), JSON.stringify(error), inspect(error, { depth: 10 })];
    for (const output of outputs) expect(output).not.toContain(key);
    expect(String(error)).toContain('Bearer [redacted]');
  });

  it('closes the attempt for hooks when the caller aborts it in flight', async () => {
    const controller = new AbortController();
    const { fetch } = recordingFetch(
      () =>
        new Promise<Response>((_resolve, reject) => {
          controller.signal.addEventListener('abort', () => reject(controller.signal.reason));
          queueMicrotask(() => controller.abort(new Error('stop'))); // abort while the request is in flight
        }),
    );
    const ends: (string | undefined)[] = [];
    const client = new ServiceClient({
      apiKey: freshKey(),
      baseUrl: BASE_URL,
      fetch,
      hooks: { onResponse: (e) => ends.push(e.code) },
    });
    const pending = client.createEwayBill('d', validModel(), { signal: controller.signal });
    await expect(pending).rejects.toMatchObject({ name: 'AbortedAfterSendError', mayHaveSucceeded: true });
    expect(ends).toEqual(['ABORTED_AFTER_SEND']);
  });
});
