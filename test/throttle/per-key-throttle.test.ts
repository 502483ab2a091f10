import { createProcessRateLimiter, ServiceClient } from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runOnFakeClock, useFakeClock } from '../helpers/fake-clock.js';
import { gaps, recordingFetch } from '../helpers/fake-fetch.js';
import { expectGrants, recordingLimiter } from '../helpers/limiter-grants.js';
import { freshKey, validModel } from '../helpers/model.js';

const BASE_URL = 'https://service.test/api/partner';

beforeEach(useFakeClock);
afterEach(() => vi.useRealTimers());

describe('the 1 request/second per-key throttle', () => {
  it('starts no two requests of one key less than 1000 ms apart, even when fired at once', async () => {
    const { fetch, calls } = recordingFetch();
    // The default limiter (interval 1000, margin 25), recorded: its grants are what is checked, on the fake clock.
    const { limiter, grants } = recordingLimiter(createProcessRateLimiter());
    const client = new ServiceClient({ apiKey: freshKey(), baseUrl: BASE_URL, fetch, rateLimiter: limiter });
    await runOnFakeClock(
      Promise.all(Array.from({ length: 4 }, (_, i) => client.createEwayBill(`doc${i}`, validModel()))),
    );
    expect(calls).toHaveLength(4);
    // Each grant 1000 ms (+ the 25 ms margin, + at most the fake clock's 1 ms step) after the previous request left,
    // one per request, and no fetch before its grant.
    expectGrants(
      grants,
      calls.map((call) => call.at),
      1000,
      27,
    );
    for (const gap of gaps(calls)) expect(gap).toBeGreaterThanOrEqual(1000);
    // The calls start in the order they were made.
    expect(calls.map((c) => c.url.slice(-4))).toEqual(['doc0', 'doc1', 'doc2', 'doc3']);
  });

  it('is shared by every client of the process that uses the same key', async () => {
    const key = freshKey('shared');
    const { fetch, calls } = recordingFetch();
    const a = new ServiceClient({ apiKey: key, baseUrl: BASE_URL, fetch });
    const b = new ServiceClient({ apiKey: key, baseUrl: `${BASE_URL}/`, fetch });
    await runOnFakeClock(
      Promise.all([
        a.createEwayBill('a1', validModel()),
        b.createEwayBill('b1', validModel()),
        a.createEwayBill('a2', validModel()),
      ]),
    );
    expect(calls).toHaveLength(3);
    for (const gap of gaps(calls)) expect(gap).toBeGreaterThanOrEqual(1000);
  });

  it('never makes one key wait for another', async () => {
    const { fetch, calls } = recordingFetch();
    const slow = new ServiceClient({ apiKey: freshKey('a'), baseUrl: BASE_URL, fetch });
    const other = new ServiceClient({ apiKey: freshKey('b'), baseUrl: BASE_URL, fetch });
    const busy = [slow.createEwayBill('a1', validModel()), slow.createEwayBill('a2', validModel())];
    await runOnFakeClock(other.createEwayBill('b1', validModel()));
    await runOnFakeClock(Promise.all(busy));
    const start = (suffix: string) => calls.find((c) => c.url.endsWith(suffix))?.at ?? Number.NaN;
    // b1 was made after a2 was queued, yet starts before it: a2 waits for a1's second, b1 does not.
    expect(start('b1')).toBeLessThan(start('a2'));
  });

  it('lets a call aborted while queued leave at once, send nothing, and pass its turn to the next call', async () => {
    const { fetch, calls } = recordingFetch();
    const client = new ServiceClient({ apiKey: freshKey('abort'), baseUrl: BASE_URL, fetch });
    const controller = new AbortController();
    const first = client.createEwayBill('first', validModel());
    const aborted = client.createEwayBill('aborted', validModel(), { signal: controller.signal });
    const third = client.createEwayBill('third', validModel());
    const abortedAt = performance.now();
    controller.abort(new Error('user cancelled'));
    const error = await runOnFakeClock(aborted.catch((e: unknown) => e));
    const settledAfter = performance.now() - abortedAt;
    await runOnFakeClock(Promise.all([first, third]));

    expect(error).toMatchObject({ name: 'AbortError' });
    expect((error as Error).cause).toEqual(new Error('user cancelled'));
    expect(settledAfter).toBeLessThan(50); // it did not wait for its turn
    expect(calls.map((c) => c.url.split('/').pop())).toEqual(['first', 'third']);
    // 'third' took the aborted call's turn (about 1 s after 'first'), not the turn after it (about 2 s).
    const gap = gaps(calls)[0] ?? Number.NaN;
    expect(gap).toBeGreaterThanOrEqual(1000);
    expect(gap).toBeLessThan(1100);
  });

  it('rejects at once, without sending, a call whose signal is already aborted', async () => {
    const { fetch, calls } = recordingFetch();
    const client = new ServiceClient({ apiKey: freshKey(), baseUrl: BASE_URL, fetch });
    const error = await client
      .createEwayBill('x', validModel(), { signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(calls).toHaveLength(0);
  });

  it('holds a SHA-256 hash of the key, never the key itself', async () => {
    const key = freshKey('private');
    const seen: string[] = [];
    const limiter = createProcessRateLimiter();
    const { fetch } = recordingFetch();
    const client = new ServiceClient({
      apiKey: key,
      baseUrl: BASE_URL,
      fetch,
      rateLimiter: {
        acquire: (id, signal) => {
          seen.push(id);
          return limiter.acquire(id, signal);
        },
      },
    });
    await runOnFakeClock(client.createEwayBill('doc', validModel()));
    const expected = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key))).toString('hex');
    expect(seen).toEqual([expected]);
  });
});
