import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback.js';

/** One request as the server read it. */
export interface Arrival {
  readonly method: string;
  readonly url: string;
  readonly body: string;
}

/** How the server answers one request; it may answer late, or never (the socket is closed by `close()`). */
export type Answer = (req: IncomingMessage, res: ServerResponse) => void;

/** Answers JSON with a status. */
export const jsonAnswer =
  (status: number, body: unknown): Answer =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

/** Never answers: the attempt ends by its timeout or the caller's signal. */
export const noAnswer: Answer = () => {};

/**
 * A node:http server on 127.0.0.1 at a free port, under the path prefix `/api/partner`, that records each request once
 * its body is read and answers it with the next of `queue` (then with `fallback`). `arrived(n)` resolves once `n`
 * requests arrived, so a test waits for an event, never a fixed time.
 */
export async function startAnswerServer(fallback: Answer = jsonAnswer(200, { ok: true })) {
  const arrivals: Arrival[] = [];
  const queue: Answer[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      arrivals.push({ method: req.method ?? '', url: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      for (const waiter of waiters.filter((w) => arrivals.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      (queue.shift() ?? fallback)(req, res);
    });
  });
  const { port, close } = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}/api/partner`,
    arrivals,
    /** Answers the next requests, in order, with these. */
    answer: (...answers: Answer[]) => queue.push(...answers),
    arrived: (count: number) =>
      arrivals.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve })),
    close,
  };
}
