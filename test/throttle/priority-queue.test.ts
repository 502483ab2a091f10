import { describe, expect, it } from 'vitest';
import { PASS_OVER_LIMIT, type Priority, PriorityQueue } from '../../src/throttle/priority-queue.js';
import { orderOf, positionFor, positionOf, REPLAY_LIMIT } from '../../src/throttle/queue-place.js';

function drain<T>(queue: PriorityQueue<T>): T[] {
  const out: T[] = [];
  for (let entry = queue.shift(); entry; entry = queue.shift()) out.push(entry.value);
  return out;
}

describe('the priority queue of one budget', () => {
  it('grants first in, first out within one priority', () => {
    const queue = new PriorityQueue<number>();
    for (let i = 0; i < 5; i++) queue.add(i, 'normal');
    expect(drain(queue)).toEqual([0, 1, 2, 3, 4]);
  });

  it('grants a high call before the low calls queued ahead of it, and the low ones after, in their order', () => {
    const queue = new PriorityQueue<string>();
    for (let i = 0; i < 5; i++) queue.add(`low${i}`, 'low');
    queue.add('high', 'high');
    queue.add('normal', 'normal');
    expect(queue.peek()?.value).toBe('high');
    expect(drain(queue)).toEqual(['high', 'normal', 'low0', 'low1', 'low2', 'low3', 'low4']);
  });

  it('gives the 10th grant to the oldest lower-priority waiter after 9 grants passed over it', () => {
    expect(PASS_OVER_LIMIT).toBe(9);
    const queue = new PriorityQueue<string>();
    queue.add('low', 'low');
    for (let i = 0; i < 30; i++) queue.add(`high${i}`, 'high');
    const granted = drain(queue);
    expect(granted.indexOf('low')).toBe(9);
    expect(granted.filter((v) => v !== 'low')).toEqual(Array.from({ length: 30 }, (_, i) => `high${i}`));
  });

  it('keeps a waiting low call out for at most 10 slots under a steady stream of high calls arriving one per grant', () => {
    const queue = new PriorityQueue<string>();
    queue.add('high-1', 'high');
    queue.add('low', 'low');
    let slots = 0;
    for (let i = 0; i < 100; i++) {
      queue.add(`high${i}`, 'high'); // a new urgent call arrives before every grant
      slots += 1;
      if (queue.shift()?.value === 'low') break;
    }
    expect(slots).toBeLessThanOrEqual(10);
    expect(slots).toBe(10);
  });

  it('passes over the oldest of the lower priorities: a low that waited longer than a normal gets the fairness grant', () => {
    const queue = new PriorityQueue<string>();
    queue.add('low', 'low');
    queue.add('normal', 'normal');
    for (let i = 0; i < 20; i++) queue.add(`high${i}`, 'high');
    const granted = drain(queue);
    expect(granted.indexOf('low')).toBe(9);
    expect(granted.indexOf('normal')).toBe(19);
  });

  it('counts only grants made while a lower-priority call waited', () => {
    const queue = new PriorityQueue<string>();
    for (let i = 0; i < 8; i++) queue.add(`high${i}`, 'high');
    drain(queue); // nobody lower waited: nothing passed over
    queue.add('low', 'low');
    for (let i = 0; i < 12; i++) queue.add(`later${i}`, 'high');
    expect(drain(queue).indexOf('low')).toBe(9);
  });

  it('removes a waiter in place, and tells sizes per priority', () => {
    const queue = new PriorityQueue<string>();
    const a = queue.add('a', 'low');
    queue.add('b', 'high');
    queue.add('c', 'normal');
    expect(queue.counts()).toEqual({ high: 1, normal: 1, low: 1 });
    expect(queue.remove(a)).toBe(true);
    expect(queue.remove(a)).toBe(false);
    expect(queue.size).toBe(2);
    expect(drain(queue)).toEqual(['b', 'c']);
  });

  it('tells each waiter its position as the grants will come, without granting', () => {
    const queue = new PriorityQueue<string>();
    const low = queue.add('low', 'low');
    const highs = Array.from({ length: 12 }, (_, i) => queue.add(`high${i}`, 'high'));
    expect(positionOf(queue, highs[0] as never)).toBe(0);
    expect(positionOf(queue, low)).toBe(9);
    expect(positionOf(queue, highs[11] as never)).toBe(12);
    expect(positionFor(queue, 'high')).toBe(13);
    expect(positionFor(queue, 'low')).toBe(13);
    expect(queue.size).toBe(13);
    const order = orderOf(queue);
    expect(drain(queue)).toEqual(order);
    expect(positionOf(queue, low)).toBe(-1);
  });

  it('agrees, position by position, with the grants actually made, for a mixed queue', () => {
    const priorities: Priority[] = ['low', 'high', 'normal', 'high', 'low', 'normal', 'high'];
    const queue = new PriorityQueue<number>();
    const entries = Array.from({ length: 70 }, (_, i) => queue.add(i, priorities[i % priorities.length] as Priority));
    const predicted = entries.map((entry) => positionOf(queue, entry));
    const granted = drain(queue);
    for (const [i, entry] of entries.entries()) expect(granted.indexOf(entry.value)).toBe(predicted[i]);
  });

  it('estimates the place of the newest waiter in O(1) beyond REPLAY_LIMIT waiters: those more urgent and those ahead', () => {
    const queue = new PriorityQueue<number>();
    for (let i = 0; i < REPLAY_LIMIT; i++) queue.add(i, i % 2 ? 'low' : 'high');
    const normal = queue.add(-1, 'normal');
    expect(positionOf(queue, normal)).toBe(REPLAY_LIMIT / 2);
    const low = queue.add(-2, 'low');
    expect(positionOf(queue, low)).toBe(REPLAY_LIMIT + 1);
    expect(positionFor(queue, 'high')).toBe(REPLAY_LIMIT / 2);
    // Removed, it is no longer the newest of its priority: the replay answers.
    queue.remove(low);
    expect(positionOf(queue, low)).toBe(-1);
  });
});
