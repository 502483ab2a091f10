import type { AddressInfo, Server, Socket } from 'node:net';

/**
 * Starts `server` (an HTTP server, or a raw `net` one) on 127.0.0.1 at a free port and tracks its sockets, so that `close()` ends every connection (a
 * keep-alive or a hung request included) and never waits on one.
 */
export async function listenOnLoopback(server: Server): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
