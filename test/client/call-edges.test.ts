// Edges of one call found by a review of the call path's performance pass: a key hash that fails once, a partner's
// rate limiter that writes to or throws in its release, a header named __proto__, an abort that lands while ky prepares
// the request, the key echoed in a success answer's headers, and the order in which a new client's calls reach the
// rate limiter when they are started microtasks apart.
import { type RateLimiter, RateLimiterUnavailableError, ServiceClient } from 'invoicing-service-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { json, startFaultServer } from '../helpers/fault-server.js';
import { freshKey, validModel } from '../helpers/model.js';

const BASE = 'https://service.invalid/api/partner';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A fetch that answers success at once and counts its calls; it ignores the abort signal (a custom fetch may). */
function countingFetch() {
  const urls: string[] = [];
  const fetch = async (input: RequestInfo | URL) => {
    urls.push(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    return new Response(JSON.stringify({ success: true, message: 'E-way bill 331000123456 generated' }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  };
  return { fetch, urls };
}

const noWait: RateLimiter = { acquire: async () => undefined };

describe('a key whose hash fails once (Web Crypto, no node:crypto)', () => {
  it('fails that call only; the next call hashes again and is sent', async () => {
    const getBuiltin = process.getBuiltinModule.bind(process);
    vi.spyOn(process, 'getBuiltinModule').mockImplementation(((id: string) =>
      id === 'node:crypto' || id === 'crypto' ? undefined : getBuiltin(id)) as typeof process.getBuiltinModule);
    const digest = vi
      .spyOn(globalThis.crypto.subtle, 'digest')
      .mockRejectedValueOnce(new DOMException('digest refused', 'OperationError'));
    const { fetch, urls } = countingFetch();
    const client = new ServiceClient({ apiKey: freshKey('webcrypto'), baseUrl: BASE, fetch, rateLimiter: noWait });
    await expect(client.request('GET', '/v2/product/list')).rejects.toThrow('digest refused');
    expect(urls).toHaveLength(0);
    await expect(client.request('GET', '/v2/product/list')).resolves.toMatchObject({ success: true });
    expect(urls).toHaveLength(1);
    expect(digest).toHaveBeenCalledTimes(2);
  });
});

describe("a partner's rate limiter cannot change what the service answered", () => {
  it('a release that writes to the outcome it is given: the call succeeds, sent once', async () => {
    const { fetch, urls } = countingFetch();
    const seen: unknown[] = [];
    const rateLimiter: RateLimiter = {
      acquire: async () => (outcome) => {
        if (outcome) (outcome as { releasedAt?: number }).releasedAt = Date.now();
        seen.push(outcome);
      },
    };
    const client = new ServiceClient({ apiKey: freshKey('annotate'), baseUrl: BASE, fetch, rateLimiter });
    const first = await client.createEwayBill('doc-1', validModel());
    const second = await client.createEwayBill('doc-2', validModel());
    expect([first.ewayBillNumber, second.ewayBillNumber]).toEqual(['331000123456', '331000123456']);
    expect(urls).toHaveLength(2);
    // Each release gets its own outcome object.
    expect(seen).toHaveLength(2);
    expect(seen[0]).not.toBe(seen[1]);
    expect(seen[0]).toMatchObject({ rateLimited: false });
  });

  it('a release that throws: the call succeeds, sent once, and the failure is logged (never silent)', async () => {
    const { fetch, urls } = countingFetch();
    const warnings: string[] = [];
    const logger = { debug: () => {}, warn: (line: string) => void warnings.push(line) };
    const rateLimiter: RateLimiter = {
      acquire: async () => () => {
        throw new Error('redis connection lost during release');
      },
    };
    const client = new ServiceClient({ apiKey: freshKey('throwing'), baseUrl: BASE, fetch, rateLimiter, logger });
    await expect(client.createEwayBill('doc-1', validModel())).resolves.toMatchObject({ success: true });
    expect(urls).toHaveLength(1);
    expect(warnings.some((line) => line.includes('rateLimiter release failed'))).toBe(true);
    expect(warnings.join('\n')).toContain('redis connection lost during release');
  });
});

describe("a partner's rate limiter whose acquire fails", () => {
  it('gives a typed RateLimiterUnavailableError that says nothing was sent, with the failure as its cause', async () => {
    const { fetch, urls } = countingFetch();
    const failure = new Error('the quota service is down');
    const rateLimiter: RateLimiter = {
      acquire: async () => {
        throw failure;
      },
    };
    const client = new ServiceClient({ apiKey: freshKey('acquire-fails'), baseUrl: BASE, fetch, rateLimiter });
    const error = await client.createEwayBill('doc-1', validModel()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimiterUnavailableError);
    expect(error).toMatchObject({ code: 'RATE_LIMITER_UNAVAILABLE', mayHaveSucceeded: false, cause: failure });
    expect((error as Error).message).toMatch(
      /acquire\(\) failed: Error: the quota service is down\); nothing was sent/,
    );
    expect(urls).toHaveLength(0);
  });
});

describe('a header named __proto__', () => {
  it('is refused with a TypeError at the client and at the call, not silently dropped', async () => {
    const { fetch, urls } = countingFetch();
    expect(
      () =>
        new ServiceClient({
          apiKey: freshKey('proto'),
          baseUrl: BASE,
          fetch,
          headers: JSON.parse('{"__proto__":"x"}'),
        }),
    ).toThrow(/headers cannot hold a header named __proto__/);
    const client = new ServiceClient({ apiKey: freshKey('proto'), baseUrl: BASE, fetch, rateLimiter: noWait });
    await expect(
      client.request('GET', '/v2/product/list', { headers: JSON.parse('{"__PROTO__":"x"}') }),
    ).rejects.toThrow(/options.headers cannot hold a header named __PROTO__/);
    expect(urls).toHaveLength(0);
  });
});

describe('an abort that lands while ky prepares the request', () => {
  it('sends nothing, even through a fetch that ignores the signal: a plain AbortError, not AbortedAfterSendError', async () => {
    const { fetch, urls } = countingFetch();
    let controller = new AbortController();
    const client = new ServiceClient({
      apiKey: freshKey('early-abort'),
      baseUrl: BASE,
      fetch,
      rateLimiter: noWait,
      maxRetries: 0,
      // The hook runs just before the attempt starts; the abort lands a microtask later, inside ky's own awaits.
      hooks: { onRequest: () => queueMicrotask(() => controller.abort(new Error('user cancelled'))) },
    });
    await client.request('GET', '/warm').catch(() => {}); // loads ky (the abort of this call's controller is unused)
    urls.length = 0;
    controller = new AbortController();
    const error = await client.request('GET', '/v2/product/list', { signal: controller.signal }).catch((e) => e);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
    expect((error as { mayHaveSucceeded?: boolean }).mayHaveSucceeded).toBeUndefined();
    expect(urls).toHaveLength(0);
  });
});

describe('the key echoed in a success answer', () => {
  it("is redacted in the result's message and lastResponse's headers (a real loopback server echoes it)", async () => {
    const key = freshKey('echo');
    const server = await startFaultServer([
      json(
        200,
        { success: true, message: `E-way bill 331000123456 generated for ${key}` },
        { 'x-echo': `Bearer ${key}` },
      ),
    ]);
    closers.push(server.close);
    const client = new ServiceClient({ apiKey: key, baseUrl: server.baseUrl, rateLimiter: noWait });
    const result = await client.createEwayBill('doc-echo', validModel());
    expect(result.lastResponse?.headers['x-echo']).toBe('Bearer [redacted]');
    expect(result.message).toBe('E-way bill 331000123456 generated for [redacted]');
    expect(result.ewayBillNumber).toBe('331000123456');
    expect(JSON.stringify(result)).not.toContain(key);
    expect(JSON.stringify(result.lastResponse)).not.toContain(key);
  });
});

/**
 * Starts 12 calls of one new client, alternately request and createEwayBill, 0–3 microtasks apart; their order at the
 * limiter, for each budget it was asked for (the key's, and the `rateLimitKey`'s when named).
 */
async function limiterOrder(Client: typeof ServiceClient, rateLimitKey?: string): Promise<number[][]> {
  const { fetch } = countingFetch();
  const orders = new Map<string, number[]>();
  const rateLimiter: RateLimiter = {
    acquire: async (keyId, signal) => {
      const order = orders.get(keyId) ?? [];
      orders.set(keyId, order);
      order.push((signal as AbortSignal & { tag: number }).tag);
    },
  };
  const client = new Client({ apiKey: freshKey('fifo'), baseUrl: BASE, fetch, rateLimiter, rateLimitKey });
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < 12; i++) {
    const signal = Object.assign(new AbortController().signal, { tag: i });
    calls.push(
      i % 2 === 0
        ? client.request('GET', '/v2/product/list', { signal })
        : client.createEwayBill(`doc-${i}`, validModel(), { signal }),
    );
    for (let tick = 0; tick < i % 4; tick++) await Promise.resolve();
  }
  await Promise.all(calls);
  return [...orders.values()];
}

describe("a process's very first calls, started microtasks apart", () => {
  it('reach the rate limiter in the order they were made while the preflight rules and ky load', async () => {
    // A fresh copy of the SDK's modules: nothing loaded yet, as in a process that just started.
    vi.resetModules();
    const fresh = await import('invoicing-service-sdk');
    expect(await limiterOrder(fresh.ServiceClient)).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]]);
  });
});

describe("a new client's calls started microtasks apart", () => {
  it('reach the rate limiter in the order they were made (request and createEwayBill, with and without rateLimitKey)', async () => {
    const { fetch } = countingFetch();
    // Loads ky and the preflight rules first: the order of a process's very first calls is not what this checks.
    await new ServiceClient({ apiKey: freshKey('warm'), baseUrl: BASE, fetch, rateLimiter: noWait }).createEwayBill(
      'warm',
      validModel(),
    );
    const inOrder = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
    expect(await limiterOrder(ServiceClient)).toEqual([inOrder]);
    // Two budgets (the key's and the name's), each asked in call order.
    expect(await limiterOrder(ServiceClient, 'tenant-1')).toEqual([inOrder, inOrder]);
  });
});

describe("a partner's rate limiter that ignores the call's signal", () => {
  it('the abort still ends the call at once, and a grant that comes later is given back unused', async () => {
    let grant: ((release: () => void) => void) | undefined;
    const released: string[] = [];
    const deaf: RateLimiter = {
      acquire: () =>
        new Promise((resolve) => {
          grant = resolve;
        }),
    };
    const { fetch, urls } = countingFetch();
    const client = new ServiceClient({ apiKey: freshKey('deaf'), baseUrl: BASE, fetch, rateLimiter: deaf });
    const controller = new AbortController();
    const call = client.request('GET', '/v2/product/list', { signal: controller.signal });
    await vi.waitFor(() => expect(grant).toBeDefined());
    controller.abort(new Error('caller gave up'));
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    grant?.(() => released.push('released'));
    await vi.waitFor(() => expect(released).toEqual(['released']));
    expect(urls).toHaveLength(0);
  });
});
