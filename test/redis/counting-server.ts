import { once } from 'node:events';
import { createServer } from 'node:http';
import { expect } from 'vitest';
import type { Send } from '../helpers/send-times.js';

export { type Send, stampingFetch } from '../helpers/send-times.js';

/**
 * A node:http stand-in for the service on loopback: it records when each request arrived and answered, on the clock the
 * SDK's sends are stamped with (`Date.now()`, see `stampingFetch`). Its stamps are evidence of what arrived and
 * when at the earliest, never of the spacing: a late first stamp shrinks the next gap whatever the SDK decided.
 */
export interface CountingServer {
  readonly baseUrl: string;
  /** `Date.now()` at each request's arrival, in arrival order. */
  readonly arrivals: number[];
  /** The e-way bill id of each request (the last path segment), in arrival order. */
  readonly ids: string[];
  /** `Date.now()` when each answer was written, in arrival order of the requests. */
  readonly answers: number[];
  /** Resolves once `count` requests have arrived. */
  arrived(count: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts one. `answerAfterMs`: how long each answer waits after its request was read. `holdUntil`: no answer is written
 * before that many requests have arrived (so a client that waits for answers before sending more would hang).
 */
export async function startCountingServer(answerAfterMs = 0, holdUntil = 0): Promise<CountingServer> {
  const arrivals: number[] = [];
  const answers: number[] = [];
  const ids: string[] = [];
  const waiting = new Set<{ count: number; resolve(): void }>();
  const notify = () => {
    for (const waiter of waiting) {
      if (arrivals.length < waiter.count) continue;
      waiting.delete(waiter);
      waiter.resolve();
    }
  };
  const arrived = (count: number) =>
    new Promise<void>((resolve) => {
      waiting.add({ count, resolve });
      notify();
    });
  const server = createServer((request, response) => {
    const index = arrivals.push(Date.now()) - 1;
    ids.push(request.url?.split('/').filter(Boolean).at(-1) ?? '');
    notify();
    request.resume();
    request.on('end', async () => {
      if (holdUntil > 0) await arrived(holdUntil);
      setTimeout(() => {
        answers[index] = Date.now();
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ success: true, message: 'ok', data: { ewb_number: 1 } }));
      }, answerAfterMs);
    });
  });
  server.keepAliveTimeout = 100;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/api/partner`,
    arrivals,
    answers,
    ids,
    arrived,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/**
 * What the SDK decided, with the server as evidence: every request was sent once and arrived once (none lost, none
 * doubled); the sends, in time order, are at least `interval` apart; and no request arrived before it was sent. All
 * stamps are `Date.now()` on one machine, so a busy machine can only make a send later than the limiter's grant, never
 * earlier, and cannot make an arrival precede its send. The gap between two arrivals is never bounded.
 */
export function expectSpacedSends(sends: readonly Send[], server: CountingServer, interval: number): Send[] {
  const ordered = sends.toSorted((a, b) => a.at - b.at);
  expect(new Set(ordered.map((send) => send.id)).size).toBe(ordered.length);
  expect(server.ids.toSorted()).toEqual(ordered.map((send) => send.id).toSorted());
  for (const gap of gaps(ordered.map((send) => send.at))) expect(gap).toBeGreaterThanOrEqual(interval);
  for (const send of ordered) {
    expect(server.arrivals[server.ids.indexOf(send.id)]).toBeGreaterThanOrEqual(send.at);
  }
  return ordered;
}

/** The gaps between consecutive values. */
export const gaps = (times: readonly number[]) => times.slice(1).map((time, i) => time - (times[i] ?? time));
