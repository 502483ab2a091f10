import {
  ConnectionError,
  createProcessRateLimiter,
  InvalidHashIdError,
  isAlreadyGenerated,
  mayHaveSucceeded,
  PortalError,
  ServerError,
  ServiceClient,
  TimeoutError,
  UnexpectedResponseError,
} from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEwayBillOnce, DEFAULT_RESEND_DELAY_MS } from '../../src/client/once.js';
import { runOnFakeClock, useFakeClock } from '../helpers/fake-clock.js';
import { freshKey, validModel } from '../helpers/model.js';
import { type BillServer, startBillServer } from './bill-server.js';

let server: BillServer;
let client: ServiceClient;
const key = freshKey('once');

beforeEach(async () => {
  server = await startBillServer({ keys: [key], documents: ['doc_1', 'doc_2'] });
  client = new ServiceClient({
    apiKey: key,
    baseUrl: server.baseUrl,
    rateLimiter: createProcessRateLimiter({ interval: 10, margin: 0 }),
    preflight: 'off',
  });
});
afterEach(() => {
  vi.useRealTimers();
  return server.close();
});

// The resend's wait is what the 'waits resendDelayMs' tests below are about; elsewhere it is short, so these tests do
// not each sleep the 5 s default (the real-time effect of the wait is tested in test/resilience/after-send.test.ts).
const quick = { resendDelayMs: 20 } as const;

describe('createEwayBillOnce', () => {
  it('returns the service answer as generated after one POST when nothing goes wrong', async () => {
    const result = await createEwayBillOnce(client, 'doc_1', validModel());
    expect(result).toMatchObject({ success: true, outcome: 'generated', recovered: false, recoveredFrom: undefined });
    expect(result.message).toBe('E-way bill generated for doc_1');
    expect(server.postsOf('doc_1')).toBe(1);
  });

  it('sends once more after a lost answer and takes the 604 as success: exactly 2 POSTs, one bill', async () => {
    server.script('doc_1', 'generate-then-drop');
    const result = await createEwayBillOnce(client, 'doc_1', validModel(), quick);
    expect(result.outcome).toBe('already-generated');
    expect(result.recovered).toBe(true);
    expect(result.recoveredFrom).toBeInstanceOf(ConnectionError);
    expect((result.recoveredFrom as ConnectionError).mayHaveSucceeded).toBe(true);
    expect(result.message).toMatch(/doc_1 was already generated \(portal code 604\)/);
    expect(server.postsOf('doc_1')).toBe(2);
    expect(server.generated.get('doc_1')).toBe(1);
  });

  it('recovers after a timeout while the bill was generated (fake clock, held while traffic is on its way)', async () => {
    // The 300 ms timeout applies to the resend too: on the real clock a loaded machine could take longer than that to
    // deliver the resend's 604 (the stress run's failure in client-journal.test.ts). The clock moves only while the
    // server holds the first request on purpose, so the timeout cuts that one and never the 604 on its way.
    server.script('doc_1', 'generate-then-hang');
    const { hooks, inTransit } = server.traffic();
    const held = new ServiceClient({
      apiKey: key,
      baseUrl: server.baseUrl,
      rateLimiter: createProcessRateLimiter({ interval: 10, margin: 0 }),
      preflight: 'off',
      hooks,
    });
    useFakeClock();
    const work = createEwayBillOnce(held, 'doc_1', validModel(), { timeout: 300, ...quick });
    const result = await runOnFakeClock(work, 30_000, { holdWhile: inTransit });
    expect(result.outcome).toBe('already-generated');
    expect(result.recoveredFrom).toBeInstanceOf(TimeoutError);
    expect(server.postsOf('doc_1')).toBe(2);
  });

  it('reports generated-on-resend when the first attempt failed with a 5xx and had not generated', async () => {
    server.script('doc_1', 'error-500');
    const result = await createEwayBillOnce(client, 'doc_1', validModel(), quick);
    expect(result.outcome).toBe('generated-on-resend');
    expect(result.recovered).toBe(true);
    expect(result.recoveredFrom).toBeInstanceOf(ServerError);
    expect(server.postsOf('doc_1')).toBe(2);
    expect(server.generated.get('doc_1')).toBe(1);
  });

  it('never loops: when the resend is lost too it throws that error after exactly 2 POSTs', async () => {
    server.script('doc_1', 'drop', 'drop', 'drop');
    const error = await createEwayBillOnce(client, 'doc_1', validModel(), quick).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).mayHaveSucceeded).toBe(true);
    expect(server.postsOf('doc_1')).toBe(2);
  });

  it(`waits resendDelayMs before the resend: ${DEFAULT_RESEND_DELAY_MS} ms by default (fake clock)`, async () => {
    useFakeClock();
    for (const [docHashId, options, wait] of [
      ['doc_1', {}, DEFAULT_RESEND_DELAY_MS],
      ['doc_2', { resendDelayMs: 1500 }, 1500],
    ] as const) {
      server.script(docHashId, 'generate-then-drop');
      const result = await runOnFakeClock(createEwayBillOnce(client, docHashId, validModel(), options));
      expect(result.outcome).toBe('already-generated');
      const [first, resend] = server.posts.filter((post) => post.docHashId === docHashId);
      // At least the wait; at most the wait plus the limiter's 10 ms and the steps of the fake clock while bytes moved.
      expect((resend?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(wait);
      expect((resend?.at ?? 0) - (first?.at ?? 0)).toBeLessThan(wait + 1000);
    }
    expect(DEFAULT_RESEND_DELAY_MS).toBe(5000);
  });

  it('throws a certain failure at once, after one POST', async () => {
    const error = await createEwayBillOnce(client, 'doc_unknown', validModel()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidHashIdError);
    expect(server.postsOf('doc_unknown')).toBe(1);
  });

  it('throws a 604 on the first request as a PortalError: someone else generated that bill', async () => {
    await client.createEwayBill('doc_2', validModel());
    const error = await createEwayBillOnce(client, 'doc_2', validModel()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PortalError);
    expect(isAlreadyGenerated(error)).toBe(true);
    expect(server.postsOf('doc_2')).toBe(2);
  });

  it('takes a 604 on the first request as success with mayAlreadyExist, after one POST', async () => {
    await client.createEwayBill('doc_2', validModel());
    const result = await createEwayBillOnce(client, 'doc_2', validModel(), { mayAlreadyExist: true });
    expect(result).toMatchObject({ outcome: 'already-generated', recovered: true, recoveredFrom: undefined });
    expect(server.postsOf('doc_2')).toBe(2);
  });

  it('refuses retryWhenMaybeSent and bad options with a TypeError, sending nothing', async () => {
    const unsafe = { retryWhenMaybeSent: true } as never;
    await expect(createEwayBillOnce(client, 'doc_1', validModel(), unsafe)).rejects.toThrow(
      /retryWhenMaybeSent is not accepted/,
    );
    await expect(
      createEwayBillOnce(client, 'doc_1', validModel(), { mayAlreadyExist: 'yes' as never }),
    ).rejects.toThrow(/options.mayAlreadyExist must be a boolean/);
    await expect(createEwayBillOnce({} as never, 'doc_1', validModel())).rejects.toThrow(/must be a ServiceClient/);
    expect(server.posts).toHaveLength(0);
  });

  it('stops without a resend when the signal aborts between the two requests, and says the bill may exist', async () => {
    server.script('doc_1', 'generate-then-drop');
    const controller = new AbortController();
    const slow = new ServiceClient({
      apiKey: key,
      baseUrl: server.baseUrl,
      rateLimiter: createProcessRateLimiter({ interval: 2_000, margin: 0 }),
      preflight: 'off',
      hooks: { onResponse: () => controller.abort() },
    });
    const error = await createEwayBillOnce(slow, 'doc_1', validModel(), { signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    // The first request generated the bill and lost its answer: the abort must not read as "nothing happened".
    expect((error as Error).name).toBe('AbortedAfterSendError');
    expect(mayHaveSucceeded(error)).toBe(true);
    expect(server.postsOf('doc_1')).toBe(1);
  });
});

// Issue 29 (review 28, findings 4 and 17): `lastResponse.attempts` counts the requests of both calls, and a 2xx that
// cannot be read is the service's success answer: no resend.
describe('createEwayBillOnce: attempts and unreadable success answers', () => {
  it.each([
    { scripts: ['error-500'], outcome: 'generated-on-resend', status: 200, attempts: 2 },
    // A lost answer, then the resend's 604: the result is made from that error answer, and counts both requests.
    { scripts: ['generate-then-drop'], outcome: 'already-generated', status: 400, attempts: 2 },
    // The first call's 429 was retried: it reached the service too.
    { scripts: ['rate-limited', 'error-500'], outcome: 'generated-on-resend', status: 200, attempts: 3 },
  ] as const)(
    'after $scripts and a resend, lastResponse.attempts is $attempts, the POSTs the service read',
    async (step) => {
      server.script('doc_1', ...step.scripts);
      const result = await createEwayBillOnce(client, 'doc_1', validModel(), quick);
      expect(result.outcome).toBe(step.outcome);
      expect(server.postsOf('doc_1')).toBe(step.attempts);
      expect(result.lastResponse).toMatchObject({ status: step.status, attempts: step.attempts });
    },
  );

  it('takes a 2xx too large for maxResponseBytes as generated, unreadable: one POST, no resend', async () => {
    const result = await createEwayBillOnce(client, 'doc_1', validModel(), { ...quick, maxResponseBytes: 10 });
    expect(server.postsOf('doc_1')).toBe(1);
    expect(server.generated.get('doc_1')).toBe(1);
    expect(result).toMatchObject({ success: true, outcome: 'generated', recovered: true });
    expect(result.recoveredFrom).toBeInstanceOf(UnexpectedResponseError);
    expect((result.recoveredFrom as UnexpectedResponseError).reason).toBe('too-large');
    expect(result.ewayBillNumber).toBeUndefined();
    expect(result.message).toMatch(/doc_1 .*answered 200.*could not be read/);
    expect(result.lastResponse).toMatchObject({ status: 200, attempts: 1 });
  });

  it.each([
    { scripts: ['error-500'], recoveredFrom: ServerError, attempts: 2 },
    { scripts: ['rate-limited', 'drop'], recoveredFrom: ConnectionError, attempts: 3 },
  ] as const)(
    "takes the resend's 2xx too large for maxResponseBytes as generated on resend, as it does the first request's (it threw): after $scripts",
    async (step) => {
      server.script('doc_1', ...step.scripts);
      const result = await createEwayBillOnce(client, 'doc_1', validModel(), { ...quick, maxResponseBytes: 10 });
      expect(server.postsOf('doc_1')).toBe(step.attempts);
      expect(server.generated.get('doc_1')).toBe(1);
      expect(result).toMatchObject({ success: true, outcome: 'generated-on-resend', recovered: true });
      expect(result.recoveredFrom).toBeInstanceOf(step.recoveredFrom);
      expect(result.ewayBillNumber).toBeUndefined();
      expect(result.message).toMatch(/doc_1 .*answered 200 to the resend.*could not be read \(too-large\)/);
      expect(result.lastResponse).toMatchObject({ status: 200, attempts: step.attempts });
    },
  );
});
