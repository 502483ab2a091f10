import { createProcessRateLimiter, ServiceClient } from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runOnFakeClock, useFakeClock } from '../helpers/fake-clock.js';
import { recordingFetch } from '../helpers/fake-fetch.js';
import { freshKey, validModel } from '../helpers/model.js';

const BASE_URL = 'https://service.test/api/partner';

beforeEach(useFakeClock);
afterEach(() => vi.useRealTimers());

/** A fetch whose answers take `ms`, recording when each answer came back. */
function slowFetch(ms: number) {
  const answeredAt: number[] = [];
  const recorded = recordingFetch(
    ...Array.from(
      { length: 3 },
      () => () =>
        new Promise<Response>((resolve) =>
          setTimeout(() => {
            answeredAt.push(performance.now());
            resolve(Response.json({ success: true, message: 'ok' }));
          }, ms),
        ),
    ),
  );
  return { ...recorded, answeredAt };
}

async function twoCalls(
  fetch: typeof globalThis.fetch,
  limiterOptions?: Parameters<typeof createProcessRateLimiter>[0],
) {
  const rateLimiter = limiterOptions ? createProcessRateLimiter(limiterOptions) : undefined;
  const client = new ServiceClient({ apiKey: freshKey('spacing'), baseUrl: BASE_URL, fetch, rateLimiter });
  await runOnFakeClock(
    Promise.all([client.createEwayBill('a', validModel()), client.createEwayBill('b', validModel())]),
  );
}

describe('spacing from the answer (the service counts a request when it arrives, before it answers)', () => {
  it('with waitForAnswer: true starts the next request of a key at least 1000 ms after the previous answer', async () => {
    const { fetch, calls, answeredAt } = slowFetch(300);
    await twoCalls(fetch, { waitForAnswer: true });
    expect(calls).toHaveLength(2);
    const afterAnswer = (calls[1]?.at ?? 0) - (answeredAt[0] ?? Number.NaN);
    expect(afterAnswer).toBeGreaterThanOrEqual(1000);
    expect(afterAnswer).toBeLessThan(1100); // and not much longer
  });

  it('by default (waitForAnswer: false) spaces the starts only', async () => {
    const { fetch, calls, answeredAt } = slowFetch(300);
    await twoCalls(fetch);
    const gap = (calls[1]?.at ?? 0) - (calls[0]?.at ?? 0);
    expect(gap).toBeGreaterThanOrEqual(1000);
    expect(gap).toBeLessThan(1100);
    // It did not wait for the answer: it started less than 1000 ms after it.
    expect((calls[1]?.at ?? 0) - (answeredAt[0] ?? Number.NaN)).toBeLessThan(1000);
  });

  it('does not wait for a slow answer beyond answerWaitLimit', async () => {
    const { fetch, calls, answeredAt } = slowFetch(4000);
    await twoCalls(fetch, { answerWaitLimit: 500, waitForAnswer: true });
    const gap = (calls[1]?.at ?? 0) - (calls[0]?.at ?? 0);
    expect(gap).toBeGreaterThanOrEqual(1500); // 500 ms assumed to arrive, then 1000 ms
    expect(gap).toBeLessThan(1600);
    expect(calls[1]?.at ?? Number.POSITIVE_INFINITY).toBeLessThan(answeredAt[0] ?? Number.NaN); // before the answer came
  });
});
