// Issue 28, item 8: a PUT that timed out is resent (documented), and its result did not say that it went twice. Now
// `lastResponse.attempts` counts the requests of the call that may have reached the service, and `idempotent: false`
// turns the resend after a possible send off. Combinations with maxRetries, timeout, signal and the method, against a
// real node:http server on loopback; waits are on arrivals and hooks, never on the clock.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AbortedAfterSendError,
  ServerError,
  ServiceClient,
  type ServiceClientOptions,
  TimeoutError,
} from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonAnswer, noAnswer, startAnswerServer } from '../helpers/answer-server.js';
import { freshKey, validModel } from '../helpers/model.js';

let server: Awaited<ReturnType<typeof startAnswerServer>>;

beforeEach(async () => {
  server = await startAnswerServer();
});
afterEach(() => server.close());

// Generous enough that a loaded machine answers a request the server does answer well within it; the requests that
// time out are those the server never answers.
const TIMEOUT = 1500;

const clientOf = (options: ServiceClientOptions = {}) =>
  new ServiceClient({
    apiKey: freshKey('resend'),
    baseUrl: server.baseUrl,
    rateLimiter: { acquire: async () => undefined },
    preflight: 'off',
    timeout: TIMEOUT,
    ...options,
  });

const failureOf = (call: Promise<unknown>) =>
  call.then(
    () => 'resolved',
    (error: unknown) => error,
  );
const methods = () => server.arrivals.map((a) => a.method);
const tooMany = jsonAnswer(429, { success: false, error_code: 'RATE_LIMITED', message: 'slow down' });

describe('lastResponse.attempts', () => {
  it('a PUT that timed out is sent again, and its result says 2 (it said nothing)', async () => {
    server.answer(noAnswer);
    const doc = await clientOf().request<{ ok: boolean }>('PUT', '/v2/doc/1', { body: { a: 1 } });
    expect(doc).toEqual({ ok: true });
    expect(doc.lastResponse.attempts).toBe(2);
    expect(methods()).toEqual(['PUT', 'PUT']);
  });

  it('is 1 for a call answered at once, and counts answered 429s and 503s that were retried', async () => {
    const client = clientOf();
    expect((await client.request<object>('GET', '/a')).lastResponse.attempts).toBe(1);
    server.answer(tooMany, jsonAnswer(503, { message: 'busy' }));
    expect((await client.request<object>('GET', '/b')).lastResponse.attempts).toBe(3);
    server.answer(tooMany, jsonAnswer(200, { success: true, message: 'E-way bill generated' }));
    const bill = await client.createEwayBill('doc_1', validModel());
    expect(bill.lastResponse?.attempts).toBe(2);
    expect(server.arrivals).toHaveLength(6);
  });

  it('does not count an attempt that never left (a refused connection)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const refusedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    let calls = 0;
    // The first attempt goes to a port where nothing listens (a real ECONNREFUSED); the next to the server.
    const fetch: typeof globalThis.fetch = (input, init) => {
      calls++;
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (calls === 1) url.port = String(refusedPort);
      return globalThis.fetch(new Request(url, input instanceof Request ? input : init), init);
    };
    const doc = await clientOf({ fetch }).request<object>('POST', '/v2/doc', { body: { a: 1 } });
    expect(calls).toBe(2);
    expect(doc.lastResponse.attempts).toBe(1);
    expect(server.arrivals).toHaveLength(1);
  });
});

describe('idempotent: false', () => {
  it('a PUT that timed out is not sent again: TimeoutError, mayHaveSucceeded (it was resent)', async () => {
    server.answer(noAnswer);
    const error = await failureOf(clientOf().request('PUT', '/v2/doc/1', { body: { a: 1 }, idempotent: false }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ mayHaveSucceeded: true });
    expect(methods()).toEqual(['PUT']);
  });

  it('a DELETE answered 503 is not sent again (it was), nor a GET reset after sending', async () => {
    server.answer(jsonAnswer(503, { message: 'busy' }), (req) => req.socket.destroy());
    const client = clientOf();
    const deleted = await failureOf(client.request('DELETE', '/v2/doc/1', { idempotent: false }));
    expect(deleted).toBeInstanceOf(ServerError);
    const read = await failureOf(client.request('GET', '/v2/doc/1', { idempotent: false }));
    expect(read).toMatchObject({ code: 'CONNECTION_ERROR', mayHaveSucceeded: true });
    expect(methods()).toEqual(['DELETE', 'GET']);
  });

  it('is still resent after a 429, where the service certainly did not act', async () => {
    server.answer(tooMany);
    const doc = await clientOf().request<object>('PUT', '/v2/doc/1', { body: {}, idempotent: false });
    expect(doc.lastResponse.attempts).toBe(2);
    expect(methods()).toEqual(['PUT', 'PUT']);
  });

  it('with retryWhenMaybeSent: true the caller asks for the resend after a timeout', async () => {
    server.answer(noAnswer);
    const doc = await clientOf().request<object>('PUT', '/v2/doc/1', {
      body: {},
      idempotent: false,
      retryWhenMaybeSent: true,
    });
    expect(doc.lastResponse.attempts).toBe(2);
  });

  it('idempotent: true (the default) on a GET, PUT or DELETE changes nothing; maxRetries: 0 sends once anyway', async () => {
    server.answer(noAnswer);
    const client = clientOf();
    const doc = await client.request<object>('GET', '/v2/doc/1', { idempotent: true });
    expect(doc.lastResponse.attempts).toBe(2);
    server.answer(noAnswer);
    const error = await failureOf(client.request('PUT', '/v2/doc/1', { body: {}, maxRetries: 0 }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(methods()).toEqual(['GET', 'GET', 'PUT']);
  });

  it('a POST that timed out is never resent, as before; idempotent: true cannot make it resent (TypeError, nothing sent)', async () => {
    server.answer(noAnswer);
    const client = clientOf();
    const error = await failureOf(client.request('POST', '/v2/doc', { body: {} }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(methods()).toEqual(['POST']);
    for (const method of ['POST', 'PATCH'] as const) {
      await expect(client.request(method, '/v2/doc', { body: {}, idempotent: true })).rejects.toThrow(
        `request: options.idempotent cannot be true for a ${method}: it is never resent after a possible send; pass retryWhenMaybeSent: true to accept resends`,
      );
    }
    await expect(client.request('PUT', '/v2/doc', { idempotent: 'no' as never })).rejects.toThrow(
      'request: options.idempotent must be a boolean; got a string',
    );
    expect(methods()).toEqual(['POST']);
  });
});

describe('the caller signal ends a resend', () => {
  it('aborted while the first PUT waits for its answer: AbortedAfterSendError, never resent', async () => {
    server.answer(noAnswer);
    const controller = new AbortController();
    const call = failureOf(clientOf().request('PUT', '/v2/doc/1', { body: {}, signal: controller.signal }));
    await server.arrived(1);
    controller.abort();
    expect(await call).toBeInstanceOf(AbortedAfterSendError);
    expect(methods()).toEqual(['PUT']);
  });

  it.each([
    ['a timed-out PUT: AbortedAfterSendError (the first may have reached)', noAnswer, 'AbortedAfterSendError'],
    ['a 429: a plain AbortError (the service certainly did not act)', tooMany, 'AbortError'],
  ])('aborted in the pause before resending %s', async (_, first, name) => {
    server.answer(first);
    const controller = new AbortController();
    const client = clientOf({ hooks: { onRetry: () => controller.abort() } });
    const error = await failureOf(client.request('PUT', '/v2/doc/1', { body: {}, signal: controller.signal }));
    expect((error as Error).name).toBe(name);
    expect(error instanceof AbortedAfterSendError).toBe(name === 'AbortedAfterSendError');
    expect(methods()).toEqual(['PUT']);
  });
});
