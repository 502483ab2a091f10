import { inspect } from 'node:util';
import {
  ApiError,
  BadRequestError,
  ConnectionError,
  ForbiddenError,
  InvalidHashIdError,
  isServiceError,
  mayHaveSucceeded,
  PortalError,
  RateLimitError,
  ServerError,
  ServiceClient,
  ServiceError,
  TimeoutError,
  UnauthorizedError,
  ValidationError,
} from 'invoicing-service-sdk';
import { describe, expect, it, vi } from 'vitest';
import { recordingFetch } from '../helpers/fake-fetch.js';
import { freshKey, validModel } from '../helpers/model.js';

const BASE_URL = 'https://service.test/api/partner';

async function failureOf(answer: Response, key = freshKey()): Promise<unknown> {
  const { fetch } = recordingFetch(answer);
  const client = new ServiceClient({ apiKey: key, baseUrl: BASE_URL, fetch, maxRetries: 0 });
  return client.createEwayBill('doc_1', validModel()).then(
    () => expect.unreachable('createEwayBill should have rejected'),
    (error: unknown) => error,
  );
}

const envelope = (errorCode: string, message = 'something failed', errors: Record<string, unknown> = {}) => ({
  success: false,
  error_code: errorCode,
  message,
  errors,
});

describe('error answers map to typed errors', () => {
  it.each([
    [401, 'UNAUTHORIZED', UnauthorizedError, 'UNAUTHORIZED'],
    [401, 'FORBIDDEN', ForbiddenError, 'FORBIDDEN'],
    [400, 'INVALID_HASH_ID', InvalidHashIdError, 'INVALID_HASH_ID'],
    [400, 'PORTAL_ERROR_238', PortalError, 'PORTAL_ERROR'],
    [400, 'SOMETHING_NEW', BadRequestError, 'BAD_REQUEST'],
    [429, 'RATE_LIMITED', RateLimitError, 'RATE_LIMITED'],
    [500, 'INTERNAL', ServerError, 'SERVER_ERROR'],
    [503, 'UNAVAILABLE', ServerError, 'SERVER_ERROR'],
  ] as const)('%i %s becomes %o', async (status, errorCode, Class, code) => {
    const body = envelope(errorCode, 'the message', { field: ['detail'] });
    const error = await failureOf(Response.json(body, { status, headers: { 'x-request-id': 'req_1' } }));
    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({
      code,
      status,
      errorCode,
      message: 'the message',
      errors: { field: ['detail'] },
      body,
      request: { method: 'POST', url: `${BASE_URL}/v2/ewaybill/doc_1` },
    });
    expect((error as ApiError).headers['x-request-id']).toBe('req_1');
  });

  it('parses the portal code of PORTAL_ERROR_{n} as a number', async () => {
    const error = await failureOf(Response.json(envelope('PORTAL_ERROR_604'), { status: 400 }));
    expect(error).toBeInstanceOf(PortalError);
    expect((error as PortalError).portalCode).toBe(604);
  });

  it('keeps an unknown error_code on an ApiError', async () => {
    const error = await failureOf(Response.json(envelope('TEAPOT'), { status: 418 }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).not.toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ code: 'API_ERROR', status: 418, errorCode: 'TEAPOT' });
  });

  it('reads Retry-After in seconds and as an HTTP date on a 429', async () => {
    const seconds = await failureOf(
      Response.json(envelope('RATE_LIMITED'), { status: 429, headers: { 'retry-after': '120' } }),
    );
    expect((seconds as RateLimitError).retryAfter).toBe(120);
    // The SDK reads the date against Date.now(): on a fixed clock the answer is exact, however long the call took.
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-21T10:00:00.000Z') });
    try {
      const date = new Date(Date.now() + 90_000).toUTCString();
      const dated = await failureOf(
        Response.json(envelope('RATE_LIMITED'), { status: 429, headers: { 'retry-after': date } }),
      );
      expect((dated as RateLimitError).retryAfter).toBe(90);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps a portal code too large to hold exactly as an ApiError with the error_code as received', async () => {
    const errorCode = 'PORTAL_ERROR_99999999999999999999';
    const error = await failureOf(
      Response.json({ success: false, error_code: errorCode, message: 'odd', errors: {} }, { status: 400 }),
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).not.toBeInstanceOf(PortalError);
    expect(error).toMatchObject({ errorCode, status: 400 });
  });

  it('turns an HTML page from a proxy into an ApiError with the status, a short excerpt and the raw body, never a SyntaxError', async () => {
    const html = `<html><head><title>502 Bad Gateway</title></head><body>${'x'.repeat(5000)}</body></html>`;
    const error = await failureOf(new Response(html, { status: 502, headers: { 'content-type': 'text/html' } }));
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).message).toMatch(/HTTP 502 with a body that is not JSON \(text\/html\): <html>/);
    expect((error as ServerError).message.length).toBeLessThan(400); // the message has an excerpt only
    expect((error as ServerError).body).toBe(html); // the body is the text as received
    expect((error as ServerError).mayHaveSucceeded).toBe(true);
  });

  it('turns an empty error body into an ApiError that says the body was empty', async () => {
    const error = await failureOf(new Response(null, { status: 400 }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as ApiError).message).toBe('The service answered HTTP 400 with an empty body');
  });

  it('treats a 200 whose body says success: false as an error', async () => {
    const error = await failureOf(Response.json(envelope('PORTAL_ERROR_238', 'Invalid pincode')));
    expect(error).toBeInstanceOf(PortalError);
    expect(error).toMatchObject({ status: 200, portalCode: 238, message: 'Invalid pincode', mayHaveSucceeded: false });
  });

  it.each([
    ['no error_code', { success: false, message: 'could not generate' }],
    ['an unknown error_code', { success: false, error_code: 'INTERNAL', message: 'try later' }],
  ])(
    'a 200 whose body says success: false with %s may have succeeded (the status and the body disagree)',
    async (_l, body) => {
      const error = await failureOf(Response.json(body));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 200, mayHaveSucceeded: true });
    },
  );

  it.each([
    ['an empty 200', new Response('', { status: 200 }), 'UNEXPECTED_RESPONSE'],
    ['a 200 with HTML', new Response('<html>ok</html>', { status: 200 }), 'UNEXPECTED_RESPONSE'],
    ['a 200 without success: true', Response.json({ message: 'done?' }), 'API_ERROR'],
  ])('reports %s as an ApiError that may have succeeded (%s)', async (_label, answer, code) => {
    const error = await failureOf(answer);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code, status: 200, mayHaveSucceeded: true });
    expect((error as ApiError).message).toMatch(/may have acted on the request/);
  });

  it('never puts the API key in the message, JSON or inspection output of an error', async () => {
    const key = freshKey('leak-check');
    const error = await failureOf(Response.json(envelope('UNAUTHORIZED'), { status: 401 }), key);
    const outputs = [String(error), JSON.stringify(error), inspect(error, { depth: 10, showHidden: true })];
    for (const output of outputs) expect(output).not.toContain(key);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({
      name: 'UnauthorizedError',
      code: 'UNAUTHORIZED',
      status: 401,
    });
  });
});

describe('the error classes', () => {
  it('sit under ServiceError; client-side errors are not ApiErrors', () => {
    for (const error of [
      new ValidationError('x', []),
      new ConnectionError('down', { mayHaveSucceeded: false }),
      new TimeoutError(10, { mayHaveSucceeded: true }),
    ]) {
      expect(error).toBeInstanceOf(ServiceError);
      expect(error).not.toBeInstanceOf(ApiError);
      expect(isServiceError(error)).toBe(true);
    }
    expect(isServiceError(new Error('plain'))).toBe(false);
  });

  it('have stable codes and names', () => {
    expect(
      [
        ServiceError,
        ApiError,
        UnauthorizedError,
        ForbiddenError,
        InvalidHashIdError,
        PortalError,
        BadRequestError,
        RateLimitError,
        ServerError,
        ValidationError,
        ConnectionError,
        TimeoutError,
      ].map((Class) => Class.code),
    ).toEqual([
      'SERVICE_ERROR',
      'API_ERROR',
      'UNAUTHORIZED',
      'FORBIDDEN',
      'INVALID_HASH_ID',
      'PORTAL_ERROR',
      'BAD_REQUEST',
      'RATE_LIMITED',
      'SERVER_ERROR',
      'VALIDATION_ERROR',
      'CONNECTION_ERROR',
      'TIMEOUT',
    ]);
    expect(new UnauthorizedError({ status: 401, message: 'm' }).name).toBe('UnauthorizedError');
  });

  it('are recognised by instanceof across copies of the SDK (the dual-package hazard)', () => {
    // An error made by another copy: same registered lineage symbol, unrelated prototype chain.
    const foreign = Object.create(Error.prototype) as object;
    Object.defineProperty(foreign, Symbol.for('invoicing-service-sdk.error-lineage'), {
      value: ['PORTAL_ERROR', 'API_ERROR', 'SERVICE_ERROR'],
    });
    expect(foreign).toBeInstanceOf(PortalError);
    expect(foreign).toBeInstanceOf(ApiError);
    expect(foreign).toBeInstanceOf(ServiceError);
    expect(foreign).not.toBeInstanceOf(UnauthorizedError);
    expect(foreign).not.toBeInstanceOf(ValidationError);
  });
});

describe('mayHaveSucceeded(error)', () => {
  it('is true only for SDK errors after which the service may have acted', () => {
    expect(mayHaveSucceeded(new TimeoutError(10, { mayHaveSucceeded: true }))).toBe(true);
    expect(mayHaveSucceeded(new TimeoutError(10, { mayHaveSucceeded: false }))).toBe(false);
    expect(mayHaveSucceeded(new ConnectionError('reset', { mayHaveSucceeded: true }))).toBe(true);
    expect(mayHaveSucceeded(new ServerError({ status: 502, message: 'bad gateway' }))).toBe(true);
    expect(mayHaveSucceeded(new PortalError({ status: 400, message: 'x', portalCode: 238 }))).toBe(false);
    expect(mayHaveSucceeded(new ValidationError('x', []))).toBe(false);
    expect(mayHaveSucceeded({ mayHaveSucceeded: true })).toBe(false);
    expect(mayHaveSucceeded(undefined)).toBe(false);
  });
});
