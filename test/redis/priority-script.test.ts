// The rate-limit script's priorities, on a real redis-server: the grants are decided by Redis alone (its TIME), so the
// tests assert who is granted, in which order, and the starts Redis recorded, never wall time. The script runs with
// waitForAnswer, so a granted request holds the key until it is released: the waiters queue however slow the machine.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLOT_SCRIPT } from '../../src/redis/slot-script.js';
import { LIBRARIES, type TestClient } from './clients.js';
import { startRedis, type TestRedis } from './redis-server.js';

const INTERVAL = 100;
const MARGIN = 5;
const RANK = { high: '0', normal: '1', low: '2' } as const;
type Rank = keyof typeof RANK;

let redis: TestRedis;
let client: TestClient;
let keyCount = 0;

beforeAll(async () => {
  redis = await startRedis();
  client = await (LIBRARIES[0] as (typeof LIBRARIES)[number]).connect(redis.port);
});
afterAll(async () => {
  await client?.close();
  await redis?.stop();
});

/** One run of the script: [0 wait | 1 granted | 2 would start too late, µs]. */
async function op(
  key: string,
  name: string,
  ticket: string,
  {
    priority = 'normal',
    maxWait = -1,
    grace = 10_000,
    process,
  }: { priority?: Rank; maxWait?: number; grace?: number; process?: [string, number, number, number] } = {},
): Promise<[number, number, ...number[]]> {
  const args = [name, ticket, String(INTERVAL), String(MARGIN), '1', '60000', String(grace), '10000'];
  const more = process ? process.map(String) : [];
  const reply = await client.command([
    'EVAL',
    SLOT_SCRIPT,
    '1',
    key,
    ...args,
    RANK[priority],
    String(maxWait),
    ...more,
  ]);
  return (reply as unknown[]).map(Number) as [number, number, ...number[]];
}

async function state(key: string): Promise<{ ls: number; q: { id: string; pr: number }[] }> {
  const raw = (await client.command(['GET', key])) as string;
  const decoded = JSON.parse(raw) as { ls: number; q: { id: string; pr: number }[] | Record<string, never> };
  // cjson encodes an empty table as an object.
  return { ls: decoded.ls, q: Array.isArray(decoded.q) ? decoded.q : [] };
}

/**
 * Every waiter asks in turn (in the order given) until one is granted; returns the grants in order with the start
 * each was given. A waiter asks again only once Redis's wait for it has passed (bounded rounds, no timing assertion).
 */
async function grantAll(key: string, waiters: { ticket: string; priority: Rank }[]) {
  const left = [...waiters];
  const granted: { ticket: string; ls: number }[] = [];
  for (let round = 0; left.length > 0 && round < 2000; round++) {
    let soonest = Number.POSITIVE_INFINITY;
    for (const waiter of left) {
      const [verdict, micros] = await op(key, 'acquire', waiter.ticket, { priority: waiter.priority });
      if (verdict === 1) {
        granted.push({ ticket: waiter.ticket, ls: (await state(key)).ls });
        await sleep(micros / 1000 + 1);
        await op(key, 'release', waiter.ticket);
        left.splice(left.indexOf(waiter), 1);
        break;
      }
      soonest = Math.min(soonest, micros / 1000);
    }
    if (Number.isFinite(soonest)) await sleep(Math.max(1, Math.min(soonest, INTERVAL)));
  }
  return granted;
}

const freshKey = () => `isdk:test-priority:${process.pid}:${keyCount++}`;

describe('the rate-limit script with priorities', () => {
  it('grants a high waiter before the low waiters queued ahead of it, the lows in their order, spaced by interval', async () => {
    const key = freshKey();
    expect((await op(key, 'acquire', 'first', { priority: 'low' }))[0]).toBe(1);
    const release = () => op(key, 'release', 'first');
    const waiters = [
      ...Array.from({ length: 4 }, (_, i) => ({ ticket: `low${i}`, priority: 'low' as const })),
      { ticket: 'high', priority: 'high' as const },
    ];
    for (const w of waiters) expect((await op(key, 'acquire', w.ticket, { priority: w.priority }))[0]).toBe(0);
    expect((await state(key)).q.map((w) => w.pr)).toEqual([2, 2, 2, 2, 0]);
    await release();
    const granted = await grantAll(key, waiters);
    expect(granted.map((g) => g.ticket)).toEqual(['high', 'low0', 'low1', 'low2', 'low3']);
    // The starts Redis recorded (its own clock): never two under interval + margin.
    const starts = granted.map((g) => g.ls);
    for (let i = 1; i < starts.length; i++)
      expect((starts[i] as number) - (starts[i - 1] as number)).toBeGreaterThanOrEqual(INTERVAL + MARGIN);
  });

  it('gives the 10th grant to the low waiter after 9 highs passed over it', async () => {
    const key = freshKey();
    expect((await op(key, 'acquire', 'first'))[0]).toBe(1);
    const waiters = [
      { ticket: 'low', priority: 'low' as const },
      ...Array.from({ length: 12 }, (_, i) => ({ ticket: `high${i}`, priority: 'high' as const })),
    ];
    for (const w of waiters) expect((await op(key, 'acquire', w.ticket, { priority: w.priority }))[0]).toBe(0);
    await op(key, 'release', 'first');
    const granted = (await grantAll(key, waiters)).map((g) => g.ticket);
    expect(granted.indexOf('low')).toBe(9);
    expect(granted.filter((t) => t !== 'low')).toEqual(Array.from({ length: 12 }, (_, i) => `high${i}`));
  });

  it('answers 2 and drops the waiter when its start, with every waiter ahead staying, is beyond its wait', async () => {
    const key = freshKey();
    expect((await op(key, 'acquire', 'first'))[0]).toBe(1);
    for (let i = 0; i < 10; i++) await op(key, 'acquire', `ahead${i}`);
    for (let i = 0; i < 10; i++) expect((await state(key)).q[i]?.id).toBe(`ahead${i}`);
    // 10 ahead at 105 ms each: about 1.1 s away; 500 ms is too short, 5 s is enough.
    const [verdict, micros] = await op(key, 'acquire', 'hurried', { maxWait: 500 });
    expect(verdict).toBe(2);
    expect(micros / 1000).toBeGreaterThan(500);
    expect((await state(key)).q.map((w) => w.id)).not.toContain('hurried');
    expect((await op(key, 'acquire', 'patient', { maxWait: 5000 }))[0]).toBe(0);
    expect((await state(key)).q.map((w) => w.id)).toContain('patient');
  });

  it('forgets a high waiter whose process stopped asking once its lease passed: the low waiter is granted', async () => {
    const key = freshKey();
    expect((await op(key, 'acquire', 'first'))[0]).toBe(1);
    await op(key, 'acquire', 'dead-high', { priority: 'high', grace: 50 });
    await op(key, 'acquire', 'low', { priority: 'low', grace: 50 });
    expect((await state(key)).q.map((w) => w.id)).toEqual(['dead-high', 'low']);
    await op(key, 'release', 'first');
    const granted = await grantAll(key, [{ ticket: 'low', priority: 'low' }]);
    expect(granted.map((g) => g.ticket)).toEqual(['low']);
    expect((await state(key)).q).toEqual([]);
  });

  it('tells the waiters of every process and the next start, without writing: status', async () => {
    const key = freshKey();
    expect(await op(key, 'status', '')).toEqual([0, 0, 0, 0]);
    expect(await client.command(['EXISTS', key])).toBe(0);
    expect((await op(key, 'acquire', 'first'))[0]).toBe(1);
    // Process A: its head waits in Redis (low), 49 more low ones wait in A; process B: one high in Redis.
    const reply = await op(key, 'acquire', 'a-head', { priority: 'low', process: ['pid-a', 0, 0, 49] });
    expect(reply.slice(0, 1)).toEqual([0]);
    expect(reply[3]).toBe(0); // granted first: nobody waits ahead of it
    const b = await op(key, 'acquire', 'b-high', { priority: 'high', process: ['pid-b', 0, 0, 0] });
    expect(b[3]).toBe(0); // the high goes before the low
    const before = await client.command(['GET', key]);
    const [high, normal, low, nextMicros] = await op(key, 'status', '');
    expect([high, normal, low]).toEqual([1, 0, 50]);
    expect(nextMicros).toBeGreaterThan(0);
    expect(await client.command(['GET', key])).toBe(before);
  });
});
