import { describe, expect, it } from 'vitest';
import { createMemoryDedupeStore } from '../../src/webhooks/index.js';

function clock(start = 1_000_000) {
  let time = start;
  return { now: () => time, advance: (ms: number) => (time += ms) };
}

describe('the in-memory dedupe store', () => {
  it('claims an id once, then reports it as processing, then as processed after commit', async () => {
    const store = createMemoryDedupeStore();
    expect(await store.claim('e1', 1000)).toBe('claimed');
    expect(await store.claim('e1', 1000)).toBe('processing');
    await store.commit('e1', 60_000);
    expect(await store.claim('e1', 1000)).toBe('processed');
  });

  it('lets an id be claimed again after release', async () => {
    const store = createMemoryDedupeStore();
    await store.claim('e1', 1000);
    await store.release('e1');
    expect(await store.claim('e1', 1000)).toBe('claimed');
  });

  it('does not forget a processed id on release', async () => {
    const store = createMemoryDedupeStore();
    await store.claim('e1', 1000);
    await store.commit('e1', 60_000);
    await store.release('e1');
    expect(await store.claim('e1', 1000)).toBe('processed');
  });

  it('lets a claim lapse after its lease, so an event whose process died can be redelivered', async () => {
    const time = clock();
    const store = createMemoryDedupeStore({ now: time.now });
    await store.claim('e1', 1000);
    time.advance(999);
    expect(await store.claim('e1', 1000)).toBe('processing');
    time.advance(1);
    expect(await store.claim('e1', 1000)).toBe('claimed');
  });

  it('forgets a processed id after its TTL and sweeps expired ids on use', async () => {
    const time = clock();
    const store = createMemoryDedupeStore({ now: time.now });
    for (const id of ['a', 'b', 'c']) {
      await store.claim(id, 1000);
      await store.commit(id, 5000);
    }
    time.advance(5000);
    expect(await store.claim('d', 1000)).toBe('claimed');
    expect(store.size).toBe(1);
    expect(await store.claim('a', 1000)).toBe('claimed');
  });

  it('never holds more than maxEntries ids, dropping the oldest first', async () => {
    const store = createMemoryDedupeStore({ maxEntries: 3 });
    for (let i = 0; i < 10; i++) {
      await store.claim(`e${i}`, 60_000);
      await store.commit(`e${i}`, 60_000);
      expect(store.size).toBeLessThanOrEqual(3);
    }
    expect(await store.claim('e9', 1000)).toBe('processed');
    expect(await store.claim('e0', 1000)).toBe('claimed');
  });

  it.each([0, -1, 1.5, Number.NaN, '10'])('refuses maxEntries %j with a TypeError', (maxEntries) => {
    expect(() => createMemoryDedupeStore({ maxEntries: maxEntries as number })).toThrow(/maxEntries must be/);
  });
});
