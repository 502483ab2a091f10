import { expect } from 'vitest';

/**
 * What the rate limiter decided, with a server as evidence: the SDK's send times (`Date.now()` when it handed each
 * request to fetch, see `stampingFetch`), in time order, are at least `interval` apart; the server got as many requests
 * as were sent; and, in time order, no arrival precedes its send (the i-th arrival is no earlier than the i-th send).
 * `arrivals` must be `Date.now()` stamps too: one clock on one machine, so a busy machine can only make a send later
 * than its grant and an arrival later than its send. The gap between two arrivals is never bounded: a late first stamp
 * shrinks the next gap whatever the SDK did.
 */
export function expectSpacedAt(sends: readonly number[], arrivals: readonly number[], interval: number): void {
  const sent = sends.toSorted((a, b) => a - b);
  const arrived = arrivals.toSorted((a, b) => a - b);
  expect(arrived).toHaveLength(sent.length);
  for (let i = 1; i < sent.length; i++) expect((sent[i] ?? 0) - (sent[i - 1] ?? 0)).toBeGreaterThanOrEqual(interval);
  for (let i = 0; i < sent.length; i++) expect(arrived[i]).toBeGreaterThanOrEqual(sent[i] ?? Number.NaN);
}
