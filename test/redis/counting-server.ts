import { once } from 'node:events';
import { createServer } from 'node:http';

/** A node:http stand-in for the service on loopback: it records when each request arrived and answered. */
export interface CountingServer {
  readonly baseUrl: string;
  /** `performance.now()` at each request's arrival, in arrival order. */
  readonly arrivals: number[];
  /** The e-way bill id of each request (the last path segment), in arrival order. */
  readonly ids: string[];
  /** `performance.now()` when each answer was written, in arrival order of the requests. */
  readonly answers: number[];
  close(): Promise<void>;
}

export async function startCountingServer(answerAfterMs = 0): Promise<CountingServer> {
  const arrivals: number[] = [];
  const answers: number[] = [];
  const ids: string[] = [];
  const server = createServer((request, response) => {
    const index = arrivals.push(performance.now()) - 1;
    ids.push(request.url?.split('/').filter(Boolean).at(-1) ?? '');
    request.resume();
    request.on('end', () => {
      setTimeout(() => {
        answers[index] = performance.now();
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
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** The gaps between consecutive values. */
export const gaps = (times: readonly number[]) => times.slice(1).map((time, i) => time - (times[i] ?? time));
