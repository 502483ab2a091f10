import {
  ApiError,
  BadRequestError,
  ConnectionError,
  createProcessRateLimiter,
  PortalError,
  RateLimitError,
  type RateLimiter,
  type RequestOptions,
  type RetryEvent,
  ServerError,
  ServiceClient,
  type ServiceClientOptions,
  TimeoutError,
} from 'invoicing-service-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runOnFakeClock, useFakeClock } from '../helpers/fake-clock.js';
import {
  type Fault,
  hangUp,
  json,
  raw,
  refusedBaseUrl,
  resetMidResponse,
  slow,
  startFaultServer,
  truncatedJson,
} from '../helpers/fault-server.js';
import { freshKey, validModel } from '../helpers/model.js';

// Every case must end in a typed error, never an unhandled rejection.
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => process.on('unhandledRejection', onUnhandled));
afterAll(() => process.off('unhandledRejection', onUnhandled));
afterEach(() => expect(unhandled).toEqual([]));

const portal = (code: number) => ({
  success: false,
  error_code: `PORTAL_ERROR_${code}`,
  message: 'rejected',
  errors: {},
});
const rateLimited = { success: false, error_code: 'RATE_LIMITED', message: 'slow down', errors: {} };

async function run(faults: Fault[], options: Partial<ServiceClientOptions> = {}, call: RequestOptions = {}) {
  const server = await startFaultServer(faults);
  const retries: RetryEvent[] = [];
  try {
    const client = new ServiceClient({
      apiKey: freshKey('fault'),
      baseUrl: server.baseUrl,
      hooks: { onRetry: (e) => retries.push(e) },
      ...options,
    });
    const outcome = await client.createEwayBill('doc_1', validModel(), call).then(
      (value) => ({ value, error: undefined }),
      (error: unknown) => ({ value: undefined, error }),
    );
    return { ...outcome, posts: server.posts, retries };
  } finally {
    await server.close();
  }
}

describe('faults where the service may have acted: a typed error, and the POST is never repeated', () => {
  it('a reset mid-response gives a ConnectionError that may have succeeded', async () => {
    const { error, posts, retries } = await run([resetMidResponse]);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ mayHaveSucceeded: true, code: 'CONNECTION_ERROR' });
    expect([posts, retries.length]).toEqual([1, 0]);
  });

  it('a connection closed without an answer gives a ConnectionError that may have succeeded', async () => {
    const { error, posts } = await run([hangUp]);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).mayHaveSucceeded).toBe(true);
    expect(posts).toBe(1);
  });

  it('a reply slower than the timeout gives a TimeoutError that may have succeeded', async () => {
    const { error, posts } = await run([slow(5000)], { timeout: 1000 });
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ mayHaveSucceeded: true, timeout: 1000, code: 'TIMEOUT' });
    expect(posts).toBe(1);
  });

  it('a 5xx with an HTML body gives a ServerError with an excerpt', async () => {
    const { error, posts } = await run([raw(502, '<html><body><h1>502 Bad Gateway</h1></body></html>', 'text/html')]);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ status: 502, mayHaveSucceeded: true });
    expect((error as ServerError).message).toContain('502 Bad Gateway');
    expect(posts).toBe(1);
  });

  it('truncated JSON gives an ApiError with the status, never a SyntaxError', async () => {
    const { error, posts } = await run([truncatedJson]);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as ApiError).message).toMatch(/not JSON .*PORTAL_/);
    expect(posts).toBe(1);
  });

  it('an empty 200 gives an ApiError that may have succeeded', async () => {
    const { error, posts } = await run([raw(200, '', 'application/json')]);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 200, mayHaveSucceeded: true });
    expect(posts).toBe(1);
  });

  it('success: false in a 200 gives the typed error of its code', async () => {
    const { error, posts } = await run([json(200, portal(238))]);
    expect(error).toBeInstanceOf(PortalError);
    expect(error).toMatchObject({ portalCode: 238, mayHaveSucceeded: false });
    expect(posts).toBe(1);
  });

  it('a very large error body is still typed, with a short excerpt in the message and 64 KiB of it kept', async () => {
    const { error, posts } = await run([raw(500, `<html>${'x'.repeat(8 * 1024 * 1024)}</html>`, 'text/html')]);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).message.length).toBeLessThan(400);
    expect((error as ServerError).body).toBe(`<html>${'x'.repeat(64 * 1024 - 6)}`);
    expect(posts).toBe(1);
  });

  it('retries after a possible send only when the caller opts in for that call (fake clock)', async () => {
    // The 1000 ms timeout also bounds the retry, whose answer must arrive: on the real clock a loaded machine could take
    // longer to deliver it. The fake clock stands still while a request or an answer is on its way, so the timeout
    // cuts only the first attempt, which the server holds (slow 5000, on the same clock).
    const server = await startFaultServer([slow(5000)]);
    const retries: RetryEvent[] = [];
    try {
      const { onRequest, onResponse } = server.traffic.hooks;
      const hooks = { onRequest, onResponse, onRetry: (e: RetryEvent) => retries.push(e) };
      const client = new ServiceClient({ apiKey: freshKey('fault'), baseUrl: server.baseUrl, hooks, timeout: 1000 });
      useFakeClock();
      const work = client.createEwayBill('doc_1', validModel(), { retryWhenMaybeSent: true });
      const value = await runOnFakeClock(work, 30_000, { holdWhile: server.traffic.inTransit });
      expect(value).toEqual({ success: true, message: 'E-way bill generated' });
      expect(server.posts).toBe(2);
      expect(retries.map((r) => r.reason)).toEqual(['TIMEOUT']);
    } finally {
      vi.useRealTimers();
      await server.close();
    }
  });

  it('an abort in flight rejects with AbortedAfterSendError carrying the reason (the bill may exist)', async () => {
    const controller = new AbortController();
    // Abort once the POST has reached the server (not after a fixed delay, which a loaded machine can outrun).
    const abortOnArrival: Fault = (req, res, socket) => {
      slow(5000)(req, res, socket);
      controller.abort('shutting down');
    };
    const { error, posts } = await run([abortOnArrival], {}, { signal: controller.signal });
    expect(error).toMatchObject({ name: 'AbortedAfterSendError', mayHaveSucceeded: true, cause: 'shutting down' });
    expect(posts).toBe(1);
  });
});

describe('faults where the service certainly did not act: retried automatically', () => {
  it('connection refused is retried, then gives a ConnectionError that did not succeed', async () => {
    const retries: RetryEvent[] = [];
    const client = new ServiceClient({
      apiKey: freshKey(),
      baseUrl: await refusedBaseUrl(),
      maxRetries: 1,
      hooks: { onRetry: (e) => retries.push(e) },
    });
    const error = await client.createEwayBill('doc', validModel()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ mayHaveSucceeded: false });
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ reason: 'CONNECTION_ERROR', attempt: 1 });
  });

  it('a 429 with Retry-After is retried after that many seconds, then succeeds', async () => {
    const { value, posts, retries } = await run([json(429, rateLimited, { 'retry-after': '1' })]);
    expect(value?.success).toBe(true);
    expect(posts).toBe(2);
    expect(retries).toEqual([expect.objectContaining({ reason: 'RATE_LIMITED', delayMs: 1000 })]);
  });

  it('a 429 storm without Retry-After backs off and gives up after maxRetries with a RateLimitError', async () => {
    const storm = Array.from({ length: 5 }, () => json(429, rateLimited));
    const { error, posts, retries } = await run(storm, { maxRetries: 2 });
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBeUndefined();
    expect(posts).toBe(3);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
    for (const retry of retries) expect(retry.delayMs).toBeGreaterThan(0);
  });

  it('a 429 storm with Retry-After honours it on every retry', async () => {
    const storm = Array.from({ length: 5 }, () => json(429, rateLimited, { 'retry-after': '1' }));
    const { error, posts, retries } = await run(storm, { maxRetries: 1 });
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(1);
    expect(posts).toBe(2);
    expect(retries.map((r) => r.delayMs)).toEqual([1000]);
  });

  it('does not wait for a Retry-After above 60 s: the RateLimitError comes back at once', async () => {
    const { error, posts, retries } = await run([json(429, rateLimited, { 'retry-after': '3600' })]);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 3600 });
    expect([posts, retries.length]).toEqual([1, 0]);
  });

  it('maxRetries per call overrides the client', async () => {
    const { error, posts } = await run(
      [json(429, rateLimited), json(429, rateLimited)],
      { maxRetries: 5 },
      { maxRetries: 0 },
    );
    expect(error).toBeInstanceOf(RateLimitError);
    expect(posts).toBe(1);
  });

  it('passes every attempt through the rate limiter again', async () => {
    const acquired: string[] = [];
    const limiter = createProcessRateLimiter();
    const rateLimiter: RateLimiter = {
      acquire: (id, signal) => {
        acquired.push(id);
        return limiter.acquire(id, signal);
      },
    };
    const storm = Array.from({ length: 3 }, () => json(429, rateLimited, { 'retry-after': '0' }));
    const { error, posts } = await run(storm, { maxRetries: 2, rateLimiter });
    expect(error).toBeInstanceOf(RateLimitError);
    expect(posts).toBe(3);
    expect(acquired).toHaveLength(3);
  });
});
