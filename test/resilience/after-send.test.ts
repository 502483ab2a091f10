// Issue 17, findings 1, 3, 4 and 5: once a request may have been sent, every outcome of the call says so; the service's
// refusal envelope is its answer whatever the status; the resend waits before racing a first request still at work.
// Every case runs against a loopback stand-in that counts bills per document (test/workflow/bill-server.ts).
import {
  AbortedAfterSendError,
  ConnectionError,
  createEwayBillOnce,
  isAlreadyGenerated,
  mayHaveSucceeded,
  PortalError,
  RateLimitError,
  RateLimiterUnavailableError,
  ServiceClient,
} from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runOnFakeClock, useFakeClock } from '../helpers/fake-clock.js';
import { freshKey, validModel } from '../helpers/model.js';
import { type BillServer, startBillServer } from '../workflow/bill-server.js';

const key = freshKey('after-send');
const noWait = { acquire: async () => undefined };
let server: BillServer;

beforeEach(async () => {
  server = await startBillServer({ keys: [key], documents: ['doc_1', 'doc_2'], slowMs: 600 });
});
afterEach(() => {
  vi.useRealTimers();
  return server.close();
});

const clientOf = (options: ConstructorParameters<typeof ServiceClient>[0] = {}) =>
  new ServiceClient({ apiKey: key, baseUrl: server.baseUrl, rateLimiter: noWait, preflight: 'off', ...options });

describe('finding 1: an abort after the request was written', () => {
  it('the caller aborting while the service works reports AbortedAfterSendError, and the bill exists', async () => {
    server.script('doc_1', 'generate-then-slow');
    const controller = new AbortController();
    const pending = clientOf().createEwayBill('doc_1', validModel(), { signal: controller.signal });
    await server.waitForPosts(1);
    controller.abort(new Error('user left'));
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortedAfterSendError);
    expect(mayHaveSucceeded(error)).toBe(true);
    expect((error as Error).cause).toEqual(new Error('user left'));
    expect(server.generated.get('doc_1')).toBe(1);
  });

  it("the README's overall deadline (AbortSignal.timeout) on createEwayBillOnce says the bill may exist", async () => {
    // The deadline starts once the request has arrived and the server holds it: an AbortSignal.timeout(300) from the
    // start fired before the send on a loaded machine (a plain AbortError, nothing sent), which is not this test's case.
    server.script('doc_1', 'generate-then-hang');
    const controller = new AbortController();
    const pending = createEwayBillOnce(clientOf(), 'doc_1', validModel(), { signal: controller.signal });
    await server.waitForPosts(1);
    const deadline = AbortSignal.timeout(1);
    deadline.addEventListener('abort', () => controller.abort(deadline.reason), { once: true });
    const error = await pending.catch((e: unknown) => e);
    expect(mayHaveSucceeded(error)).toBe(true);
    expect((error as Error).name).toBe('AbortedAfterSendError');
    expect(server.generated.get('doc_1')).toBe(1);
    expect(server.postsOf('doc_1')).toBe(1);
  });

  it('an abort during the resend of an uncertain first attempt says the bill may exist', async () => {
    server.script('doc_1', 'generate-then-drop', 'hang');
    const controller = new AbortController();
    const pending = createEwayBillOnce(clientOf(), 'doc_1', validModel(), {
      signal: controller.signal,
      resendDelayMs: 0,
    });
    await server.waitForPosts(2);
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(mayHaveSucceeded(error)).toBe(true);
    expect(server.generated.get('doc_1')).toBe(1);
  });

  it('an abort before anything was sent stays a plain AbortError: nothing happened', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await clientOf()
      .createEwayBill('doc_1', validModel(), { signal: controller.signal })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(mayHaveSucceeded(error)).toBe(false);
    expect(server.posts).toHaveLength(0);
  });

  it('an abort while waiting for the rate limit stays a plain AbortError', async () => {
    const controller = new AbortController();
    // A limiter that never grants, as a key's queue behind a long backlog; it rejects as the RateLimiter contract says.
    const never = {
      acquire: (_id: string, signal?: AbortSignal) =>
        new Promise<undefined>((_r, reject) => {
          if (signal?.aborted) reject(signal.reason);
          signal?.addEventListener('abort', () => reject(signal.reason));
        }),
    };
    const pending = clientOf({ rateLimiter: never }).createEwayBill('doc_1', validModel(), {
      signal: controller.signal,
    });
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(mayHaveSucceeded(error)).toBe(false);
    expect(server.posts).toHaveLength(0);
  });
});

describe('finding 3: the refusal envelope is the answer, whatever the status', () => {
  it('a PORTAL_ERROR_604 sent with 502 on the first request stays a PortalError, never success', async () => {
    server.script('doc_1', 'portal-604-as-502');
    const error = await createEwayBillOnce(clientOf(), 'doc_1', validModel(), { resendDelayMs: 0 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PortalError);
    expect(isAlreadyGenerated(error)).toBe(true);
    expect(mayHaveSucceeded(error)).toBe(false);
    expect(server.postsOf('doc_1')).toBe(1);
  });

  it('a definitive refusal (214) sent with 502 costs one request and is not "may have succeeded"', async () => {
    server.script('doc_1', 'portal-214-as-502');
    const error = await createEwayBillOnce(clientOf(), 'doc_1', validModel(), { resendDelayMs: 0 }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'PortalError', portalCode: 214, status: 502, mayHaveSucceeded: false });
    expect(server.postsOf('doc_1')).toBe(1);
  });

  it('is not resent even with retryWhenMaybeSent', async () => {
    server.script('doc_1', 'portal-214-as-502');
    const error = await clientOf()
      .createEwayBill('doc_1', validModel(), { retryWhenMaybeSent: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PortalError);
    expect(server.postsOf('doc_1')).toBe(1);
  });

  it('a 500 then 429s: at most two requests the service may act on, the 429s on top (it did not act on them)', async () => {
    server.script('doc_1', 'error-500', 'rate-limited', 'rate-limited');
    const result = await createEwayBillOnce(clientOf(), 'doc_1', validModel(), { resendDelayMs: 0 });
    expect(result.outcome).toBe('generated-on-resend');
    expect(server.postsOf('doc_1')).toBe(4);
    expect(server.generated.get('doc_1')).toBe(1);
  });
});

describe('finding 4: once the first attempt may have made the bill, every outcome says so', () => {
  const uncertainThen = async (second: Parameters<BillServer['script']>[1][], options = {}) => {
    server.script('doc_1', 'generate-then-drop', ...second);
    const error = await createEwayBillOnce(clientOf(options), 'doc_1', validModel(), { resendDelayMs: 0 }).catch(
      (e: unknown) => e,
    );
    expect(server.generated.get('doc_1')).toBe(1);
    return error;
  };

  it('the resend answered 429 three times (retries exhausted)', async () => {
    const error = await uncertainThen(['rate-limited', 'rate-limited', 'rate-limited']);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(mayHaveSucceeded(error)).toBe(true);
    expect((error as Error).message).toMatch(/earlier attempt of this call may have reached the service/);
    expect(server.postsOf('doc_1')).toBe(4);
  });

  it('the resend answered 429 with Retry-After 120', async () => {
    const error = await uncertainThen(['rate-limited-long']);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(mayHaveSucceeded(error)).toBe(true);
  });

  it('the resend answered 200 with success: false', async () => {
    const error = await uncertainThen(['success-false-200']);
    expect(mayHaveSucceeded(error)).toBe(true);
  });

  it('the resend found the service gone (connection refused)', async () => {
    server.script('doc_1', 'generate-then-drop');
    let calls = 0;
    const closing = {
      acquire: async () => {
        calls += 1;
        if (calls === 2) await server.close();
        return undefined;
      },
    };
    const error = await createEwayBillOnce(clientOf({ rateLimiter: closing }), 'doc_1', validModel(), {
      resendDelayMs: 0,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(mayHaveSucceeded(error)).toBe(true);
    expect(server.generated.get('doc_1')).toBe(1);
  });

  it("the resend's rate limiter is unavailable ('fail' mode)", async () => {
    server.script('doc_1', 'generate-then-drop');
    let calls = 0;
    const failing = {
      acquire: async () => {
        calls += 1;
        if (calls === 2) throw new RateLimiterUnavailableError('redis is away');
        return undefined;
      },
    };
    const error = await createEwayBillOnce(clientOf({ rateLimiter: failing }), 'doc_1', validModel(), {
      resendDelayMs: 0,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimiterUnavailableError);
    expect(mayHaveSucceeded(error)).toBe(true);
    expect(server.postsOf('doc_1')).toBe(1);
  });

  it('inside one call: a timeout after sending, then 429s with retryWhenMaybeSent', async () => {
    server.script('doc_1', 'generate-then-hang', 'rate-limited', 'rate-limited');
    // Fake clock, held while a request or an answer is on its way: the 300 ms timeout cuts the held first attempt,
    // never a 429 a loaded machine is slow to deliver.
    const { hooks, inTransit } = server.traffic();
    useFakeClock();
    const work = clientOf({ timeout: 300, hooks }).createEwayBill('doc_1', validModel(), { retryWhenMaybeSent: true });
    const error = await runOnFakeClock(work, 30_000, { holdWhile: inTransit }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(mayHaveSucceeded(error)).toBe(true);
    expect(server.generated.get('doc_1')).toBe(1);
  });
});

describe('finding 5: the resend does not race a first request the service is still working on', () => {
  // Both on a fake clock (the server's 600 ms too), held while a request or an answer is on its way: on the real clock
  // a loaded machine could deliver the resend's answer after the 200 ms timeout, or the first request after the
  // resend's 800 ms wait had begun, and the order the test is about would be the machine's, not the scenario's.
  it('with the delay, a service that records its bill late still ends with one bill (a 604 on the resend)', async () => {
    // The first attempt times out at 200 ms; the service records the bill at 600 ms and the resend comes after 1000.
    server.script('doc_1', 'check-then-record-later', 'normal');
    const { hooks, inTransit } = server.traffic();
    useFakeClock();
    const work = createEwayBillOnce(clientOf({ timeout: 200, hooks }), 'doc_1', validModel(), { resendDelayMs: 800 });
    const result = await runOnFakeClock(work, 30_000, { holdWhile: inTransit });
    expect(result.outcome).toBe('already-generated');
    expect(server.generated.get('doc_1')).toBe(1);
  });

  it('without it, the same service makes two bills: what the delay is for', async () => {
    server.script('doc_1', 'check-then-record-later', 'normal');
    const { hooks, inTransit } = server.traffic();
    useFakeClock();
    const work = createEwayBillOnce(clientOf({ timeout: 200, hooks }), 'doc_1', validModel(), { resendDelayMs: 0 });
    const result = await runOnFakeClock(work, 30_000, { holdWhile: inTransit });
    expect(result.outcome).toBe('generated-on-resend');
    expect(server.generated.get('doc_1')).toBe(1);
    // The first request records its bill when the service gets to it (600 ms), after the resend's answer.
    await runOnFakeClock(server.idle());
    expect(server.generated.get('doc_1')).toBe(2);
  });

  it('refuses a resendDelayMs that is not a number of milliseconds', async () => {
    await expect(createEwayBillOnce(clientOf(), 'doc_1', validModel(), { resendDelayMs: -1 })).rejects.toThrow(
      /options.resendDelayMs must be a number of milliseconds/,
    );
    expect(server.posts).toHaveLength(0);
  });
});
