// Issue 14, item 3: hook events tie each attempt to its document and say how long it waited for the rate limit.
import { createProcessRateLimiter, type RequestEvent, type RetryEvent, ServiceClient } from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runOnFakeClock, useFakeClock } from '../helpers/fake-clock.js';
import { recordingFetch } from '../helpers/fake-fetch.js';
import { freshKey, validModel } from '../helpers/model.js';

beforeEach(useFakeClock);
afterEach(() => vi.useRealTimers());

describe('hook events', () => {
  it('carry the docHashId and the time queued for the rate limit', async () => {
    const requests: RequestEvent[] = [];
    const responses: RequestEvent[] = [];
    const { fetch } = recordingFetch(
      () => Response.json({ success: true, message: 'ok' }),
      () => Response.json({ success: true, message: 'ok' }),
    );
    const client = new ServiceClient({
      apiKey: freshKey('ctx'),
      baseUrl: 'https://service.test/api',
      fetch,
      rateLimiter: createProcessRateLimiter(),
      hooks: { onRequest: (e) => requests.push(e), onResponse: (e) => responses.push(e) },
    });
    await runOnFakeClock(
      Promise.all([client.createEwayBill('inv-1', validModel()), client.createEwayBill('inv-2', validModel())]),
    );
    expect(requests.map((e) => e.docHashId)).toEqual(['inv-1', 'inv-2']);
    expect(responses.map((e) => e.docHashId)).toEqual(['inv-1', 'inv-2']);
    expect(requests[0]?.queuedMs).toBeLessThan(50);
    expect(requests[1]?.queuedMs).toBeGreaterThanOrEqual(1000);
    expect(requests[1]?.queuedMs).toBeLessThan(1100);
  });

  it('retry events name the document too', async () => {
    const retries: RetryEvent[] = [];
    const { fetch } = recordingFetch(
      () =>
        Response.json(
          { success: false, error_code: 'RATE_LIMITED', message: 'x', errors: {} },
          { status: 429, headers: { 'retry-after': '0' } },
        ),
      () => Response.json({ success: true, message: 'ok' }),
    );
    const client = new ServiceClient({
      apiKey: freshKey('ctx'),
      baseUrl: 'https://service.test/api',
      fetch,
      rateLimiter: { acquire: async () => undefined },
      hooks: { onRetry: (e) => retries.push(e) },
    });
    await runOnFakeClock(client.createEwayBill('inv-9', validModel()));
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ docHashId: 'inv-9', attempt: 1, reason: 'RATE_LIMITED' });
  });
});
