import { createServer, type Server } from 'node:http';
import { inspect } from 'node:util';
import { ConnectionError, type RetryEvent, ServiceClient, TimeoutError } from 'invoicing-service-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runOnFakeClock, useFakeClock } from '../helpers/fake-clock.js';
import { freshKey, validModel } from '../helpers/model.js';

afterEach(() => {
  vi.useRealTimers();
});

const BASE_URL = 'https://service.test/api/partner';

/** An error shaped like undici's: `TypeError: fetch failed` with the system error as its cause. */
function systemFailure(code: string, syscall: string): TypeError {
  const cause = Object.assign(new Error(`${syscall} ${code} 203.0.113.7:443`), { code, syscall, errno: -113 });
  return new TypeError('fetch failed', { cause });
}

function clientWith(fetch: typeof globalThis.fetch, extra: Record<string, unknown> = {}) {
  const retries: RetryEvent[] = [];
  const key = freshKey('transport');
  const client = new ServiceClient({
    apiKey: key,
    baseUrl: BASE_URL,
    fetch,
    maxRetries: 1,
    hooks: { onRetry: (e) => retries.push(e) },
    ...extra,
  });
  return { client, retries, key };
}

describe('deciding whether a failed request may have reached the service', () => {
  it.each(['EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT'])(
    'treats %s on an open connection (read) as possibly sent: typed, and never retried',
    async (code) => {
      let calls = 0;
      const { client, retries } = clientWith(async () => {
        calls += 1;
        throw systemFailure(code, 'read');
      });
      const error = await client.createEwayBill('doc', validModel()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).toMatchObject({ mayHaveSucceeded: true });
      expect([calls, retries.length]).toEqual([1, 0]);
    },
  );

  it.each(['EHOSTUNREACH', 'ENETUNREACH'])('treats %s while connecting as not sent, and retries it', async (code) => {
    let calls = 0;
    const { client, retries } = clientWith(async () => {
      calls += 1;
      if (calls === 1) throw systemFailure(code, 'connect');
      return Response.json({ success: true, message: 'E-way bill generated' });
    });
    await expect(client.createEwayBill('doc', validModel())).resolves.toMatchObject({ success: true });
    expect(calls).toBe(2);
    expect(retries).toEqual([expect.objectContaining({ reason: 'CONNECTION_ERROR', attempt: 1 })]);
  });
});

describe("the runtime fetch's blocked ports (review of issue 28, finding 9)", () => {
  /** A loopback server on the first of the Fetch standard's blocked ports that is free here: it counts connections. */
  async function listenOnBlockedPort(): Promise<{ server: Server; port: number; connections: () => number }> {
    let connections = 0;
    for (const port of [6000, 6665, 6666, 6667, 6668, 6669, 6697, 10080]) {
      const server = createServer((_req, res) => res.end('{"success":true}'));
      server.on('connection', () => {
        connections += 1;
      });
      const bound = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen(port, '127.0.0.1', () => resolve(true));
      });
      if (bound) return { server, port, connections: () => connections };
    }
    throw new Error('every blocked port is in use on this machine: free one of 6000, 6665-6669, 6697, 10080');
  }

  it("says nothing was sent when Node's fetch refuses the port before connecting", async () => {
    const { server, port, connections } = await listenOnBlockedPort();
    try {
      const client = new ServiceClient({
        apiKey: freshKey('port'),
        baseUrl: `http://127.0.0.1:${port}`,
        maxRetries: 0,
      });
      const error = await client.createEwayBill('doc', validModel()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).toMatchObject({ mayHaveSucceeded: false });
      expect((error as Error).message).toContain('bad port');
      expect((error as Error).message).not.toContain('may have been sent');
      expect(connections()).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('a custom fetch that ignores the signal cannot make a call hang', () => {
  const never = () => new Promise<Response>(() => {});

  it('ends with a TimeoutError when fetch never settles (fake clock: the timeout passes once fetch has it)', async () => {
    // On the real clock a loaded machine could spend the 50 ms preparing the request: the timeout then ends it before
    // fetch (nothing sent, mayHaveSucceeded false), which is another test's case. The clock stands still until then.
    let fetched = false;
    const { client } = clientWith(
      () => {
        fetched = true;
        return never();
      },
      { timeout: 50 },
    );
    useFakeClock();
    const work = client.createEwayBill('doc', validModel());
    const error = await runOnFakeClock(work, 30_000, { holdWhile: () => !fetched }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ mayHaveSucceeded: true });
  });

  it('ends with AbortedAfterSendError (the reason as cause) when fetch never settles', async () => {
    const controller = new AbortController();
    const { client } = clientWith(() => {
      queueMicrotask(() => controller.abort('user left'));
      return never();
    });
    const error = await client.createEwayBill('doc', validModel(), { signal: controller.signal }).catch((e) => e);
    expect(error).toMatchObject({ name: 'AbortedAfterSendError', mayHaveSucceeded: true, cause: 'user left' });
  });

  // Only the timeout is asserted here: it ends the call whether it passes before or after fetch.
  it('ends with a TimeoutError when the body stalls after the headers', async () => {
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"success":'));
      },
    });
    const { client } = clientWith(async () => new Response(stalled, { status: 200 }), { timeout: 50 });
    const error = await client.createEwayBill('doc', validModel()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
  });
});

describe('the API key in a failure from fetch', () => {
  it('never reaches the ConnectionError, its cause, or any output, even when the failure carries the request', async () => {
    let key = '';
    const { client, key: k } = clientWith(async (resource, init) => {
      const request = new Request(resource, init);
      // A fetch wrapper that attaches the request and echoes the header in its message.
      throw Object.assign(new Error(`proxy refused ${request.headers.get('authorization')}`), { request });
    });
    key = k;
    const error = await client.createEwayBill('doc', validModel()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    const outputs = [
      String(error),
      (error as Error).stack ?? '',
      JSON.stringify(error),
      inspect(error, { depth: 20, showHidden: true }),
      inspect((error as Error).cause, { depth: 20, showHidden: true }),
    ];
    for (const output of outputs) expect(output).not.toContain(key);
    expect((error as Error).message).toContain('Bearer [redacted]');
  });
});

describe('the options of one call', () => {
  const { client } = clientWith(async () => Response.json({ success: true, message: 'ok' }));

  it.each([
    [null, /options must be an object; got null/],
    ['fast', /options must be an object; got a string/],
    [{ signal: {} }, /options\.signal must be an AbortSignal; got an object/],
    [{ retryWhenMaybeSent: 'yes' }, /options\.retryWhenMaybeSent must be a boolean/],
    [{ timeout: -1 }, /options\.timeout must be a number/],
    [{ maxRetries: 1.5 }, /options\.maxRetries must be an integer/],
  ])('rejects %o with a TypeError naming the option', async (options, message) => {
    const error = await client.createEwayBill('doc', validModel(), options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(message);
  });

  it('reports an apiKey that is not a string as such, without showing it', () => {
    expect(() => new ServiceClient({ apiKey: 1234567 as never, baseUrl: BASE_URL })).toThrow(
      /apiKey must be a string or a function that returns one; got a number \(the value is not shown\)/,
    );
  });
});

describe('telling the rate limiter when a request leaves', () => {
  it("calls the slot's sent() as fetch is called and once it returned (no write watched), and release() after the answer", async () => {
    const order: string[] = [];
    const { client } = clientWith(
      async () => {
        order.push('fetch');
        return Response.json({ success: true, message: 'ok' });
      },
      {
        rateLimiter: {
          acquire: async () => Object.assign(() => order.push('release'), { sent: () => order.push('sent') }),
        },
      },
    );
    await client.createEwayBill('doc', validModel());
    expect(order).toEqual(['sent', 'fetch', 'sent', 'release']);
  });
});
