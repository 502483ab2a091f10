// maxQueueWait on a starved event loop (issue 30; found by bench:redis-scale's priority scenario under load): the
// limiter's grant for a call that fits its deadline is a timer, and a process that does not run for a while fires it
// late. A grant that comes past the call's queue deadline is given back and the call rejects with QUEUE_TIMEOUT, with
// nothing sent: the call did not start within its maxQueueWait. The starvation is a synchronous busy loop of the test
// itself, so the lateness has a lower bound whatever the machine; no assertion depends on how fast it runs.
import { createProcessRateLimiter, QueueTimeoutError, ServiceClient } from 'invoicing-service-sdk';
import { describe, expect, it } from 'vitest';
import { recordingFetch } from '../helpers/fake-fetch.js';
import { freshKey, validModel } from '../helpers/model.js';

/** Resolves once `calls` has `count` entries (a poll every 5 ms, bounded by the test's timeout). */
const sentCount = (calls: readonly unknown[], count: number) =>
  new Promise<void>((resolve) => {
    const check = () => (calls.length >= count ? resolve() : setTimeout(check, 5));
    check();
  });

/** Keeps the event loop from running for `ms` (what a process descheduled or busy with other work does). */
function starve(ms: number): void {
  for (const end = Date.now() + ms; Date.now() < end; );
}

describe('a grant that comes after the queue deadline', () => {
  it('is given back: the call rejects with QUEUE_TIMEOUT, nothing sent, and the next call still goes', async () => {
    const { fetch, calls } = recordingFetch();
    const keyed = new ServiceClient({
      apiKey: freshKey('late-grant'),
      baseUrl: 'https://service.test',
      fetch,
      rateLimiter: createProcessRateLimiter(),
    });
    await keyed.createEwayBill('first', validModel());
    // Its start fits: the key's next slot is about 1025 ms away, within the 1500 ms it may wait.
    const fits = keyed.createEwayBill('late', validModel(), { maxQueueWait: 1500 }).catch((error: unknown) => error);
    // The process does not run for 2.5 s: the slot's timer (due at ~1025 ms) fires past the deadline (1500 ms).
    starve(2500);
    const error = await fits;
    expect(error).toBeInstanceOf(QueueTimeoutError);
    expect(error).toMatchObject({ code: 'QUEUE_TIMEOUT', mayHaveSucceeded: false });
    expect(calls.map((call) => call.url.split('/').pop())).toEqual(['first']);
    // The slot went back unused: the key's next call is granted as if the late one had never been.
    await keyed.createEwayBill('next', validModel());
    await sentCount(calls, 2);
    expect(calls.map((call) => call.url.split('/').pop())).toEqual(['first', 'next']);
  }, 30_000);
});
