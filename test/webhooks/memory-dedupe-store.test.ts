import { describe, expect, it, vi } from 'vitest';
import { createMemoryDedupeStore, createWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';
import { manualClock as clock, deferred } from '../helpers/deferred.js';
import { DOCUMENT_EVENT, deliveryRequest, SECRET, withId } from './fixtures.js';

describe('the in-memory dedupe store', () => {
  it('claims an id once, then reports it as processing, then as processed after commit', async () => {
    const store = createMemoryDedupeStore();
    expect(await store.claim('e1', 1000, 'A')).toBe('claimed');
    expect(await store.claim('e1', 1000, 'B')).toBe('processing');
    await store.commit('e1', 60_000, 'A');
    expect(await store.claim('e1', 1000, 'A')).toBe('processed');
  });

  it('lets an id be claimed again after release', async () => {
    const store = createMemoryDedupeStore();
    await store.claim('e1', 1000, 'A');
    await store.release('e1', 'A');
    expect(await store.claim('e1', 1000, 'B')).toBe('claimed');
  });

  it('does not forget a processed id on release', async () => {
    const store = createMemoryDedupeStore();
    await store.claim('e1', 1000, 'A');
    await store.commit('e1', 60_000, 'A');
    await store.release('e1', 'A');
    expect(await store.claim('e1', 1000, 'A')).toBe('processed');
  });

  it('lets a claim lapse after its lease, so an event whose process died can be redelivered', async () => {
    const time = clock();
    const store = createMemoryDedupeStore({ now: time.now });
    await store.claim('e1', 1000, 'A');
    time.advance(999);
    expect(await store.claim('e1', 1000, 'B')).toBe('processing');
    time.advance(1);
    expect(await store.claim('e1', 1000, 'B')).toBe('claimed');
  });

  it('forgets a processed id after its TTL and sweeps expired ids on use', async () => {
    const time = clock();
    const store = createMemoryDedupeStore({ now: time.now });
    for (const id of ['a', 'b', 'c']) {
      await store.claim(id, 1000, 'A');
      await store.commit(id, 5000, 'A');
    }
    time.advance(5000);
    expect(await store.claim('d', 1000, 'A')).toBe('claimed');
    expect(store.size).toBe(1);
    expect(await store.claim('a', 1000, 'A')).toBe('claimed');
  });

  it('never holds more than maxEntries ids, dropping the oldest first', async () => {
    const store = createMemoryDedupeStore({ maxEntries: 3 });
    for (let i = 0; i < 10; i++) {
      await store.claim(`e${i}`, 60_000, 'A');
      await store.commit(`e${i}`, 60_000, 'A');
      expect(store.size).toBeLessThanOrEqual(3);
    }
    expect(await store.claim('e9', 1000, 'A')).toBe('processed');
    expect(await store.claim('e0', 1000, 'A')).toBe('claimed');
  });

  it('never drops a claim in progress to make room: it drops processed ids, and refuses a claim when claims fill it', async () => {
    const store = createMemoryDedupeStore({ maxEntries: 2 });
    await store.claim('done', 60_000, 'A');
    await store.commit('done', 60_000, 'A');
    expect(await store.claim('a', 60_000, 'A')).toBe('claimed');
    expect(await store.claim('b', 60_000, 'B')).toBe('claimed'); // the processed 'done' makes room
    expect(store.size).toBe(2);
    await expect(store.claim('c', 60_000, 'C')).rejects.toThrow(/maxEntries \(2\).*being processed/);
    expect(store.size).toBe(2);
    // The claims in progress are still there: a redelivery of either is not processed a second time.
    expect(await store.claim('a', 60_000, 'D')).toBe('processing');
    expect(await store.claim('b', 60_000, 'D')).toBe('processing');
    await store.commit('a', 60_000, 'A');
    expect(await store.claim('c', 60_000, 'C')).toBe('claimed'); // the processed 'a' made room again
    expect(await store.claim('b', 60_000, 'D')).toBe('processing');
  });

  it('through the handler: a redelivery during processing is never processed twice when maxEntries is reached', async () => {
    const runs = new Map<string, number>();
    const gate = deferred();
    const handler = createWebhookHandler({
      secret: SECRET,
      dedupe: createMemoryDedupeStore({ maxEntries: 2 }),
      onError: () => {},
      onEvent: async (event: WebhookEvent) => {
        runs.set(event.event_id, (runs.get(event.event_id) ?? 0) + 1);
        await gate.promise;
      },
    });
    const send = (id: string) => handler(deliveryRequest(withId(DOCUMENT_EVENT, id))).then((r) => r.status);
    const first = send('A');
    const second = send('B');
    // Both are claimed and running (their onEvent started): wait for that, not for a fixed time.
    await vi.waitFor(() => expect([runs.get('A'), runs.get('B')]).toEqual([1, 1]), { timeout: 5000, interval: 1 });
    // The store holds two claims in progress: a third event is refused with a retryable answer, not admitted by
    // dropping A's claim; A's redelivery is 409, not a second run. Both are answered while A and B still run.
    const third = send('C');
    const again = send('A');
    expect(await third).toBe(500);
    expect(await again).toBe(409);
    gate.resolve();
    expect(await Promise.all([first, second])).toEqual([200, 200]);
    expect(await send('A')).toBe(200); // a duplicate
    expect(await send('C')).toBe(200); // redelivered once a claim was settled
    expect(Object.fromEntries(runs)).toEqual({ A: 1, B: 1, C: 1 });
  });

  it("keeps a newer owner's claim when the owner whose lease ran out releases the id", async () => {
    const time = clock();
    const store = createMemoryDedupeStore({ now: time.now });
    expect(await store.claim('e1', 1000, 'A')).toBe('claimed');
    time.advance(1000);
    expect(await store.claim('e1', 1000, 'B')).toBe('claimed');
    await store.release('e1', 'A');
    expect(await store.claim('e1', 1000, 'C')).toBe('processing');
    await store.release('e1', 'B');
    expect(await store.claim('e1', 1000, 'C')).toBe('claimed');
  });

  it("does not mark another owner's claim processed when the owner whose lease ran out commits", async () => {
    const time = clock();
    const store = createMemoryDedupeStore({ now: time.now });
    await store.claim('e1', 1000, 'A');
    time.advance(1000);
    await store.claim('e1', 1000, 'B');
    await store.commit('e1', 60_000, 'A');
    expect(await store.claim('e1', 1000, 'C')).toBe('processing');
    // B still owns the claim: its failure lets the redelivery run the event.
    await store.release('e1', 'B');
    expect(await store.claim('e1', 1000, 'C')).toBe('claimed');
  });

  it('lets the owner of the current claim commit it after a stale owner tried', async () => {
    const time = clock();
    const store = createMemoryDedupeStore({ now: time.now });
    await store.claim('e1', 1000, 'A');
    time.advance(1000);
    await store.claim('e1', 1000, 'B');
    await store.commit('e1', 60_000, 'A');
    await store.commit('e1', 60_000, 'B');
    expect(await store.claim('e1', 1000, 'C')).toBe('processed');
  });

  it('records a late success when the lapsed claim was not taken by anyone, so a redelivery is a duplicate', async () => {
    const time = clock();
    const store = createMemoryDedupeStore({ now: time.now });
    await store.claim('e1', 1000, 'A');
    time.advance(5000);
    await store.commit('e1', 60_000, 'A');
    expect(await store.claim('e1', 1000, 'B')).toBe('processed');
  });

  it('keeps a processed record when a stale owner commits or releases it', async () => {
    const time = clock();
    const store = createMemoryDedupeStore({ now: time.now });
    await store.claim('e1', 1000, 'A');
    time.advance(1000);
    await store.claim('e1', 1000, 'B');
    await store.commit('e1', 60_000, 'B');
    await store.release('e1', 'A');
    await store.commit('e1', 1, 'A');
    time.advance(10);
    expect(await store.claim('e1', 1000, 'C')).toBe('processed');
  });

  it.each([0, -1, 1.5, Number.NaN, '10'])('refuses maxEntries %j with a TypeError', (maxEntries) => {
    expect(() => createMemoryDedupeStore({ maxEntries: maxEntries as number })).toThrow(/maxEntries must be/);
  });
});
