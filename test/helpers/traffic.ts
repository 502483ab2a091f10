import type { Server } from 'node:http';

/** Client hooks that count attempts, and whether traffic between that client and a loopback server is on its way. */
export interface Traffic {
  readonly hooks: { onRequest(): void; onResponse(): void };
  /**
   * True while a request has left the client and not yet reached the server, or the server has answered (or dropped)
   * the attempt the client is waiting for and the client has not yet seen it.
   */
  inTransit(): boolean;
}

/**
 * Watches `server` for `runOnFakeClock(work, max, { holdWhile: traffic.inTransit })`: the fake clock moves only while
 * the server holds what it holds on purpose, so a short timeout can cut a hung request but never an answer a loaded
 * machine is slow to deliver. For one hooked client sending one attempt at a time to this server.
 */
export function watchTraffic(server: Server): Traffic {
  let arrived = 0;
  let latestAnswered = false;
  let sent = 0;
  let done = 0;
  server.on('request', (_req, res) => {
    const index = arrived;
    arrived += 1;
    latestAnswered = false;
    const answered = () => {
      if (index === arrived - 1) latestAnswered = true;
    };
    // finish: the answer was handed to the OS; close without it: the connection was dropped (or cut by the client).
    res.once('finish', answered);
    res.once('close', answered);
  });
  const hooks = {
    onRequest: () => {
      sent += 1;
    },
    onResponse: () => {
      done += 1;
    },
  };
  return { hooks, inTransit: () => sent > arrived || (sent > done && latestAnswered) };
}
