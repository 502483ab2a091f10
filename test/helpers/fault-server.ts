import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { listenOnLoopback } from './loopback.js';
import { watchTraffic } from './traffic.js';

/** How the fault server answers one request. */
export type Fault = (req: IncomingMessage, res: ServerResponse, socket: Socket) => void;

/**
 * A loopback HTTP server (127.0.0.1, a free port) that answers each POST with the next scripted fault,
 * counting the POSTs it received. Closes every socket on `close()`, so nothing hangs.
 */
export async function startFaultServer(faults: Fault[], fallback?: Fault) {
  let posts = 0;
  const server = createServer((req, res) => {
    req.on('data', () => {});
    req.on('end', () => {
      if (req.method === 'POST') posts += 1;
      const fault = faults.shift() ?? fallback ?? json(200, { success: true, message: 'E-way bill generated' });
      fault(req, res, req.socket);
    });
  });
  const traffic = watchTraffic(server);
  const { port, close } = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}/api/partner`,
    /** Hooks for one client, and whether its traffic is on its way: see `watchTraffic`. */
    traffic,
    get posts() {
      return posts;
    },
    close,
  };
}

/** Answers with a JSON body. */
export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Fault =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };

/** Answers with a raw body and content type. */
export const raw =
  (status: number, body: string | Buffer, contentType: string): Fault =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': contentType }).end(body);
  };

/** Sends the headers and part of the body, then resets the connection. */
export const resetMidResponse: Fault = (_req, res, socket) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
  res.write('{"success":tr');
  setTimeout(() => socket.destroy(), 20);
};

/** Declares a JSON body and ends it early (truncated JSON, connection closed cleanly). */
export const truncatedJson: Fault = (_req, res) => {
  res.writeHead(400, { 'content-type': 'application/json' });
  res.end('{"success":false,"error_code":"PORTAL_');
};

/** Answers only after `ms` (or never, if the socket is closed first). */
export const slow =
  (ms: number, then: Fault = json(200, { success: true, message: 'late' })): Fault =>
  (req, res, socket) => {
    const timer = setTimeout(() => then(req, res, socket), ms);
    socket.on('close', () => clearTimeout(timer));
  };

/** Closes the connection without answering, after the request arrived. */
export const hangUp: Fault = (_req, _res, socket) => {
  socket.destroy();
};

/** A loopback port with nothing listening: connections are refused. */
export async function refusedBaseUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/api/partner`;
}
