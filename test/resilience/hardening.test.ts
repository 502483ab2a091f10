// Issue 9: each finding of the adversarial audit, reproduced against real loopback servers written here.
import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import {
  ApiError,
  ConnectionError,
  type EwayBillModel,
  PortalError,
  type RateLimiter,
  RedirectError,
  ServiceClient,
  type ServiceClientOptions,
  UnauthorizedError,
  ValidationError,
} from 'invoicing-service-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../helpers/loopback.js';
import { freshKey, validModel } from '../helpers/model.js';

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => process.on('unhandledRejection', onUnhandled));
afterAll(() => process.off('unhandledRejection', onUnhandled));
afterEach(async () => {
  // Let any stray rejection surface before the check.
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  expect(unhandled).toEqual([]);
});

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Counting {
  readonly origin: string;
  readonly baseUrl: string;
  /** Every request received, method and path. */
  readonly requests: { method: string; url: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

/** A loopback server that records every request (any method) and answers with `handler`. */
async function startServer(handler: Handler): Promise<Counting> {
  const requests: Counting['requests'] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
      handler(req, res, body);
    });
  });
  const { port, close } = await listenOnLoopback(server);
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}/api/partner`,
    requests,
    close,
  };
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

const success = (res: ServerResponse) => sendJson(res, 200, { success: true, message: 'E-way bill generated' });

/** A limiter that never waits, so a test can make many calls. */
const noWait: RateLimiter = { acquire: async () => undefined };

function client(baseUrl: string, options: Partial<ServiceClientOptions> = {}) {
  return new ServiceClient({ apiKey: freshKey('hard'), baseUrl, rateLimiter: noWait, ...options });
}

async function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

describe('finding 1: the e-way bill POST never follows a redirect', () => {
  for (const status of [301, 302, 303, 307, 308]) {
    it(`a ${status} to an unreachable Location: one POST, a RedirectError that may have succeeded, no retry`, async () => {
      const port = await closedPort();
      const server = await startServer((_req, res) => {
        res.writeHead(status, { location: `http://127.0.0.1:${port}/elsewhere` }).end();
      });
      try {
        const { error } = await settle(client(server.baseUrl, { maxRetries: 3 }).createEwayBill('doc_1', validModel()));
        expect(error).toBeInstanceOf(RedirectError);
        expect(error).toBeInstanceOf(ApiError);
        const redirect = error as RedirectError;
        expect(redirect.status).toBe(status);
        expect(redirect.location).toBe(`http://127.0.0.1:${port}/elsewhere`);
        expect(redirect.mayHaveSucceeded).toBe(true);
        expect(redirect.code).toBe('REDIRECT');
        expect(server.requests).toHaveLength(1);
      } finally {
        await server.close();
      }
    });
  }

  it('a redirect is not retried even when the caller accepts retries after a possible send', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(307, { location: '/again' }).end();
    });
    try {
      const api = client(server.baseUrl, { maxRetries: 3 });
      const { error } = await settle(api.createEwayBill('doc_1', validModel(), { retryWhenMaybeSent: true }));
      expect(error).toBeInstanceOf(RedirectError);
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('a same-origin 307 loop sends exactly one POST', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(307, { location: req.url ?? '/' }).end();
    });
    try {
      const { error } = await settle(client(server.baseUrl).createEwayBill('doc_1', validModel()));
      expect(error).toBeInstanceOf(RedirectError);
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('a 307 or 308 to another origin never sends the body or the key there', async () => {
    const other = await startServer((_req, res) => success(res));
    const server = await startServer((_req, res) => {
      res.writeHead(308, { location: `${other.origin}/steal` }).end();
    });
    try {
      const { error } = await settle(client(server.baseUrl).createEwayBill('doc_1', validModel()));
      expect(error).toBeInstanceOf(RedirectError);
      expect(other.requests).toEqual([]);
    } finally {
      await server.close();
      await other.close();
    }
  });

  it('a 302 to another origin that answers success does not resolve as a generated bill', async () => {
    const other = await startServer((_req, res) => success(res));
    const server = await startServer((_req, res) => {
      res.writeHead(302, { location: `${other.origin}/ok` }).end();
    });
    try {
      const { value, error } = await settle(client(server.baseUrl).createEwayBill('doc_1', validModel()));
      expect(value).toBeUndefined();
      expect(error).toBeInstanceOf(RedirectError);
      expect(other.requests).toEqual([]);
    } finally {
      await server.close();
      await other.close();
    }
  });

  it('a Location that echoes the key is redacted', async () => {
    const apiKey = freshKey('loc');
    const server = await startServer((_req, res) => {
      res.writeHead(303, { location: `/login?token=${apiKey}` }).end();
    });
    try {
      const { error } = await settle(
        new ServiceClient({ apiKey, baseUrl: server.baseUrl, rateLimiter: noWait }).createEwayBill('d', validModel()),
      );
      expect(error).toBeInstanceOf(RedirectError);
      expect((error as RedirectError).location).toContain('[redacted]');
      expect(inspect(error, { depth: 10 })).not.toContain(apiKey);
      expect(JSON.stringify(error)).not.toContain(apiKey);
    } finally {
      await server.close();
    }
  });
});

/** Every way an error can be printed, copied or serialised. */
function everyRendering(error: unknown): string {
  const e = error as Error;
  return [
    e.message,
    String(e),
    e.stack ?? '',
    inspect(e, { depth: 20, showHidden: true }),
    JSON.stringify(e),
    inspect(structuredClone(e), { depth: 20 }),
    JSON.stringify((e as ApiError).body ?? null),
    JSON.stringify((e as ApiError).errors ?? null),
    JSON.stringify((e as ApiError).headers ?? null),
  ].join('\n');
}

describe('finding 2: the key redactor works on parsed values, not only on raw text', () => {
  // A base64 key: PHP's json_encode writes its '/' as '\/'.
  const apiKey = 'sk_live/aB9+cD8/eF7==';
  const escapedSlash = apiKey.replaceAll('/', '\\/');
  const unicodeEscaped = [...apiKey].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

  for (const [label, written] of [
    ['\\/ escapes', escapedSlash],
    ['\\uXXXX escapes', unicodeEscaped],
  ] as const) {
    it(`an echo of the Authorization header written with ${label} never reaches the error`, async () => {
      const server = await startServer((_req, res) => {
        const text =
          `{"success":false,"error_code":"UNAUTHORIZED","message":"Invalid token Bearer ${written}",` +
          `"errors":{"authorization":"Bearer ${written}","${written}":["echo"]}}`;
        res.writeHead(401, { 'content-type': 'application/json' }).end(text);
      });
      try {
        const api = new ServiceClient({ apiKey, baseUrl: server.baseUrl, rateLimiter: noWait });
        const { error } = await settle(api.createEwayBill('doc_1', validModel()));
        expect(error).toBeInstanceOf(UnauthorizedError);
        expect(everyRendering(error)).not.toContain(apiKey);
        expect((error as ApiError).message).toContain('[redacted]');
      } finally {
        await server.close();
      }
    });
  }

  it("a custom fetch's error whose code or hostname holds the key is copied redacted", async () => {
    const key = freshKey('cause');
    const failing: typeof fetch = async () => {
      throw Object.assign(new TypeError('fetch failed'), {
        cause: Object.assign(new Error(`connect to ${key}`), { code: `E_${key}`, hostname: `${key}.example` }),
      });
    };
    const api = new ServiceClient({ apiKey: key, baseUrl: 'http://127.0.0.1:9/api', fetch: failing, maxRetries: 0 });
    const { error } = await settle(api.createEwayBill('doc_1', validModel()));
    expect(error).toBeInstanceOf(ConnectionError);
    const rendered = everyRendering(error) + inspect((error as Error).cause, { depth: 10, showHidden: true });
    expect(rendered).not.toContain(key);
  });
});

describe('finding 3: redaction never touches a successful answer', () => {
  for (const apiKey of ['e', 'a', '1', 'E-way']) {
    it(`with the key '${apiKey}', a success resolves with the message as sent`, async () => {
      const server = await startServer((_req, res) => success(res));
      try {
        const api = new ServiceClient({ apiKey, baseUrl: server.baseUrl, rateLimiter: noWait });
        await expect(api.createEwayBill('doc_1', validModel())).resolves.toEqual({
          success: true,
          message: 'E-way bill generated',
        });
      } finally {
        await server.close();
      }
    });
  }

  it('with a one-character key, a portal error keeps its class, code and portal code', async () => {
    const server = await startServer((_req, res) =>
      sendJson(res, 400, { success: false, error_code: 'PORTAL_ERROR_604', message: 'already generated', errors: {} }),
    );
    try {
      const api = new ServiceClient({ apiKey: 'e', baseUrl: server.baseUrl, rateLimiter: noWait });
      const { error } = await settle(api.createEwayBill('doc_1', validModel()));
      expect(error).toBeInstanceOf(PortalError);
      expect((error as PortalError).portalCode).toBe(604);
      expect((error as PortalError).errorCode).toBe('PORTAL_ERROR_604');
    } finally {
      await server.close();
    }
  });
});

describe('finding 4: callbacks that throw or reject never crash the process or change the outcome', () => {
  it('async hooks, onWarning and logger methods that reject are reported once each through logger.warn', async () => {
    const server = await startServer((_req, res) => success(res));
    const warnings: string[] = [];
    const reject = async () => {
      throw new Error('alerting is down');
    };
    try {
      const api = client(server.baseUrl, {
        hooks: { onRequest: reject, onResponse: reject, onRetry: reject },
        onWarning: reject,
        logger: {
          debug: reject,
          warn: (message: string) => {
            warnings.push(message);
          },
        },
      });
      // A vehicle number the portal refuses: a preflight finding, reported to onWarning.
      const model = validModel({ vehicle_number: 'NOT A PLATE' } as Partial<EwayBillModel>);
      await expect(api.createEwayBill('doc_1', model)).resolves.toMatchObject({ success: true });
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.includes('hooks.onRequest failed'))).toHaveLength(1);
      expect(warnings.filter((w) => w.includes('hooks.onResponse failed'))).toHaveLength(1);
      expect(warnings.filter((w) => w.includes('logger.debug failed'))).toHaveLength(0);
      expect(warnings.some((w) => w.includes('onWarning failed'))).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('hooks that throw synchronously do not change the outcome', async () => {
    const server = await startServer((_req, res) =>
      sendJson(res, 400, { success: false, error_code: 'PORTAL_ERROR_604', message: 'already', errors: {} }),
    );
    try {
      const boom = () => {
        throw new Error('boom');
      };
      const api = client(server.baseUrl, { hooks: { onRequest: boom, onResponse: boom } });
      await expect(api.createEwayBill('doc_1', validModel())).rejects.toBeInstanceOf(PortalError);
    } finally {
      await server.close();
    }
  });
});

describe('finding 5: every listener and timer a call made is removed when it settles', () => {
  const answer = async () =>
    new Response('{"success":true,"message":"ok"}', { status: 200, headers: { 'content-type': 'application/json' } });

  it('a long-lived signal has no abort listener left after 2,000 calls with timeout: false', async () => {
    const controller = new AbortController();
    const api = new ServiceClient({
      apiKey: freshKey('sig'),
      baseUrl: 'http://127.0.0.1:9/api',
      fetch: answer,
      rateLimiter: noWait,
      timeout: false,
    });
    for (let i = 0; i < 2000; i++) await api.createEwayBill(`doc_${i}`, validModel(), { signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('no timer is left behind by answered calls with the default timeout', async () => {
    const api = new ServiceClient({
      apiKey: freshKey('tmr'),
      baseUrl: 'http://127.0.0.1:9/api',
      fetch: answer,
      rateLimiter: noWait,
    });
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    await api.createEwayBill('warm', validModel());
    const before = timers();
    for (let i = 0; i < 200; i++) await api.createEwayBill(`doc_${i}`, validModel());
    expect(timers() - before).toBeLessThanOrEqual(0);
  });

  it('a long-lived signal has no listener left after failed calls and retries either', async () => {
    const controller = new AbortController();
    let calls = 0;
    const flaky: typeof fetch = async () => {
      calls += 1;
      throw Object.assign(new TypeError('fetch failed'), {
        cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }),
      });
    };
    const api = new ServiceClient({
      apiKey: freshKey('sigf'),
      baseUrl: 'http://127.0.0.1:9/api',
      fetch: flaky,
      rateLimiter: noWait,
      maxRetries: 0,
    });
    for (let i = 0; i < 50; i++) {
      await settle(api.createEwayBill(`doc_${i}`, validModel(), { signal: controller.signal }));
    }
    expect(calls).toBe(50);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('finding 8: hostile values get a ValidationError or a TypeError naming the option, and nothing is sent', () => {
  let server: Counting;
  beforeAll(async () => {
    server = await startServer((_req, res) => success(res));
  });
  afterAll(() => server.close());

  const cases: [string, () => Promise<unknown>, new (...args: never[]) => Error, RegExp][] = [
    [
      'a BigInt in a known field',
      () => client(server.baseUrl).createEwayBill('doc', { ...validModel(), transport_distance: 10n } as never),
      ValidationError,
      /transport_distance/,
    ],
    [
      'a BigInt in an unknown field',
      () => client(server.baseUrl).createEwayBill('doc', { ...validModel(), extra: 10n } as never),
      ValidationError,
      /extra|unrecognized|BigInt/i,
    ],
    [
      'a BigInt nested in an address',
      () =>
        client(server.baseUrl).createEwayBill('doc', {
          ...validModel(),
          dispatch_from: { ...validModel().dispatch_from, addr_id: 1n },
        } as never),
      ValidationError,
      /dispatch_from\.addr_id/,
    ],
    [
      'a docHashId with a lone surrogate',
      () => client(server.baseUrl).createEwayBill('doc_\ud800', validModel()),
      ValidationError,
      /docHashId/,
    ],
    [
      'a look-alike signal without throwIfAborted or removeEventListener',
      () =>
        client(server.baseUrl).createEwayBill('doc', validModel(), {
          signal: { aborted: false, addEventListener() {} } as unknown as AbortSignal,
        }),
      TypeError,
      /options\.signal/,
    ],
    [
      'a model whose getter throws',
      () =>
        client(server.baseUrl).createEwayBill(
          'doc',
          Object.defineProperty({ ...validModel() }, 'supply_type', {
            enumerable: true,
            get() {
              throw new Error('getter');
            },
          }) as EwayBillModel,
        ),
      ValidationError,
      /supply_type|model/,
    ],
  ];
  for (const [label, call, type, where] of cases) {
    it(label, async () => {
      const before = server.requests.length;
      const { error } = await settle(call());
      expect(error).toBeInstanceOf(type);
      expect((error as Error).message).toMatch(where);
      expect(server.requests.length).toBe(before);
    });
  }
});

describe('an abort or a timeout reaches the socket, not only the promise', () => {
  for (const how of ['caller abort', 'timeout'] as const) {
    it(`${how}: the server sees the connection closed`, async () => {
      let arrived: () => void = () => {};
      const arrival = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      let closed: () => void = () => {};
      const closing = new Promise<void>((resolve) => {
        closed = resolve;
      });
      const server = await startServer((req) => {
        req.socket.on('close', () => closed());
        arrived(); // and never answer
      });
      try {
        const controller = new AbortController();
        const api = client(server.baseUrl, how === 'timeout' ? { timeout: 300 } : {});
        const call = settle(api.createEwayBill('doc_1', validModel(), { signal: controller.signal }));
        await arrival;
        if (how === 'caller abort') controller.abort();
        const { error } = await call;
        expect((error as Error).name).toBe(how === 'timeout' ? 'TimeoutError' : 'AbortedAfterSendError');
        // Bounded: the socket must close well before the test's own timeout.
        await Promise.race([
          closing,
          new Promise((_r, reject) => setTimeout(() => reject(new Error('socket still open after 5 s')), 5_000)),
        ]);
      } finally {
        await server.close();
      }
    });
  }
});
