// A partner's unit test drives the SDK with fake timers, as vitest's `vi.useFakeTimers()` fakes them by default
// (`setTimeout` and `Date`, not `performance`): each call's timeout fires when the fake clock reaches it, a call started
// later times out at its own time, not with the earlier one. (Issue 29's third session tried one shared timer per
// timeout length, keyed to `performance.now()`; under these fake timers a later call's timeout fired with the earlier
// one's. Each attempt keeps a timer of its own.)
import { type EwayBillResult, ServiceClient, TimeoutError } from 'invoicing-service-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { freshKey, validModel } from '../helpers/model.js';

afterEach(() => {
  vi.useRealTimers();
});

/** Requests that reached the fetch, by document. */
const arrived: string[] = [];

/**
 * A fetch that never answers and ends on its signal, as a hung service behind Node's fetch does; `warm-up` is answered
 * at once (it loads the client's send path before the clock is faked).
 */
const hungFetch: typeof fetch = (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  const doc = url.slice(url.lastIndexOf('/') + 1);
  arrived.push(doc);
  if (doc === 'warm-up') return Promise.resolve(Response.json({ success: true, message: 'ok' }));
  return new Promise((_resolve, reject) => {
    const signal = init?.signal;
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
};

/** Lets the SDK's promise chains run (process.nextTick is not faked) until `doc` reached the fetch; bounded. */
async function reached(doc: string): Promise<void> {
  for (let i = 0; i < 10_000 && !arrived.includes(doc); i++) await new Promise((r) => process.nextTick(r));
  expect(arrived).toContain(doc);
}

/** Lets the SDK's promise chains run between fake-clock steps (bounded). */
async function settle(turns = 200): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => process.nextTick(r));
}

describe('call timeouts under a partner test with fake timers', () => {
  it.each([
    ["vitest's default (setTimeout, Date, performance and the rest)", undefined],
    [
      "timers and Date only, performance.now() real (as jest's legacy timers leave it)",
      ['setTimeout', 'clearTimeout', 'Date'],
    ],
  ] as const)(
    'a call started 10 s after another times out 30 s after its own start, not with the first: %s',
    async (_, toFake) => {
      const client = new ServiceClient({
        apiKey: freshKey('fake-timers'),
        baseUrl: 'https://fake-timers.invalid/api/partner',
        fetch: hungFetch,
        timeout: 30_000,
        maxRetries: 0,
        rateLimiter: { acquire: async () => undefined },
        preflight: 'off',
      });
      await client.createEwayBill('warm-up', validModel());
      vi.useFakeTimers(toFake ? { toFake: [...toFake] } : undefined);
      arrived.length = 0;
      const outcomes: string[] = [];
      const track = (name: string, call: Promise<EwayBillResult>) =>
        call.then(
          () => outcomes.push(`${name}: answered`),
          (error: unknown) => outcomes.push(`${name}: ${error instanceof TimeoutError ? 'timed out' : String(error)}`),
        );
      const first = track('first', client.createEwayBill('doc-a', validModel()));
      await reached('doc-a');
      await vi.advanceTimersByTimeAsync(10_000);
      const second = track('second', client.createEwayBill('doc-b', validModel()));
      await reached('doc-b');
      await vi.advanceTimersByTimeAsync(20_000);
      await settle();
      expect(outcomes).toEqual(['first: timed out']);
      await vi.advanceTimersByTimeAsync(9_999);
      await settle();
      expect(outcomes).toEqual(['first: timed out']);
      await vi.advanceTimersByTimeAsync(1);
      await Promise.all([first, second]);
      expect(outcomes).toEqual(['first: timed out', 'second: timed out']);
    },
  );
});
