import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWebhookHandler, type WebhookDedupeStore } from '../../src/webhooks/index.js';
import { DOCUMENT_EVENT, SECRET, signed, withId } from './fixtures.js';
import { handlerStarters } from './servers.js';

// Every callback a user passes may throw or return a promise that rejects. Under Node's default
// unhandled-rejection mode, one rejection nobody handles exits the process; these tests watch for it.
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
const closers: (() => Promise<unknown>)[] = [];
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  process.off('unhandledRejection', onUnhandled);
  await Promise.all(closers.splice(0).map((close) => close()));
});

/**
 * Lets Node run its unhandled-rejection check: it runs once the microtask queue drains, before the next macrotask, so
 * two turns of the event loop (not a fixed sleep) are enough.
 */
const settle = async () => {
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
};

const starters = handlerStarters(closers);

async function post(url: string, payload: unknown, signature?: string | null) {
  const sig = signed(payload);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== null) headers['x-signature'] = signature ?? sig.signature;
  const response = await fetch(url, { method: 'POST', headers, body: sig.body });
  return { status: response.status, text: await response.text() };
}

function logger() {
  return { warn: vi.fn<(message: string, details?: Record<string, unknown>) => void>() };
}

describe.each(starters)('user callbacks of %s', (_, start) => {
  it('survives an async onError that rejects: three unsigned requests get 401, each failure is logged once', async () => {
    const log = logger();
    const url = await start({
      secret: SECRET,
      onEvent: () => {},
      onError: async () => {
        throw new Error('alerting is down');
      },
      logger: log,
    });
    for (let i = 0; i < 3; i++) expect((await post(url, DOCUMENT_EVENT, null)).status).toBe(401);
    await settle();
    expect(unhandled).toEqual([]);
    expect(log.warn).toHaveBeenCalledTimes(3);
    expect(log.warn.mock.calls[0]?.[0]).toContain('webhook onError failed');
    expect(log.warn.mock.calls[0]?.[0]).toContain('alerting is down');
    expect(JSON.stringify(log.warn.mock.calls)).not.toContain(SECRET);
  });

  it('keeps the answer when onError throws synchronously, and logs it', async () => {
    const log = logger();
    const url = await start({
      secret: SECRET,
      onEvent: () => {},
      onError: () => {
        throw new Error('sync reporter bug');
      },
      logger: log,
    });
    expect((await post(url, DOCUMENT_EVENT, 'f'.repeat(64))).status).toBe(401);
    await settle();
    expect(unhandled).toEqual([]);
    expect(log.warn).toHaveBeenCalledOnce();
  });

  it('answers 500 when an async onEvent rejects, reports it once through the logger, and never crashes', async () => {
    const log = logger();
    const url = await start({
      secret: SECRET,
      onEvent: async () => {
        throw new Error('queue unavailable');
      },
      logger: log,
    });
    const answer = await post(url, DOCUMENT_EVENT);
    expect(answer.status).toBe(500);
    expect(answer.text).not.toContain('queue unavailable');
    await settle();
    expect(unhandled).toEqual([]);
    expect(log.warn).toHaveBeenCalledOnce();
    expect(log.warn.mock.calls[0]?.[0]).toContain('queue unavailable');
  });

  it('answers 500 to a store whose claim throws, rejects or resolves to nonsense, so the service redelivers', async () => {
    const claims: (() => Promise<unknown>)[] = [
      () => {
        throw new Error('redis gone');
      },
      async () => {
        throw new Error('redis timeout');
      },
      async () => undefined,
    ];
    let next = 0;
    const onEvent = vi.fn();
    const store = {
      claim: () => (claims[next++ % claims.length] as () => Promise<unknown>)(),
      commit: async () => {},
      release: async () => {},
    } as unknown as WebhookDedupeStore;
    const log = logger();
    const url = await start({ secret: SECRET, onEvent, dedupe: store, logger: log });
    for (let i = 0; i < claims.length; i++)
      expect((await post(url, withId(DOCUMENT_EVENT, `c-${i}`))).status).toBe(500);
    await settle();
    expect(onEvent).not.toHaveBeenCalled();
    expect(unhandled).toEqual([]);
    expect(log.warn.mock.calls.map((call) => call[0]).join('\n')).toContain('dedupe.claim must resolve');
  });

  it('answers 200 when commit rejects and 500 when release throws after onEvent failed, reporting both', async () => {
    const errors: unknown[] = [];
    let fail = false;
    const store: WebhookDedupeStore = {
      claim: async () => 'claimed',
      commit: async () => {
        throw new Error('commit lost');
      },
      release: () => {
        throw new Error('release lost');
      },
    };
    const url = await start({
      secret: SECRET,
      onEvent: () => {
        if (fail) throw new Error('handler failed');
      },
      dedupe: store,
      onError: async (error) => {
        errors.push(error);
        throw new Error('and the reporter fails too');
      },
      logger: { warn: () => {} },
    });
    expect((await post(url, withId(DOCUMENT_EVENT, 'k-1'))).status).toBe(200);
    fail = true;
    expect((await post(url, withId(DOCUMENT_EVENT, 'k-2'))).status).toBe(500);
    await settle();
    expect(unhandled).toEqual([]);
    expect(errors.map((error) => (error as Error).message)).toEqual(['commit lost', 'release lost', 'handler failed']);
  });

  it('survives a logger whose warn throws', async () => {
    const url = await start({
      secret: SECRET,
      onEvent: () => {},
      onError: () => Promise.reject(new Error('x')),
      logger: {
        warn: () => {
          throw new Error('logger down');
        },
      },
    });
    expect((await post(url, DOCUMENT_EVENT, null)).status).toBe(401);
    await settle();
    expect(unhandled).toEqual([]);
  });
});

describe('logger option', () => {
  it('is checked when the handler is made', () => {
    expect(() =>
      createWebhookHandler({ secret: SECRET, onEvent: () => {}, logger: {} as unknown as { warn: () => void } }),
    ).toThrow(/logger must be an object with a warn/);
  });
});
