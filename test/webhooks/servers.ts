import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createNodeWebhookHandler,
  createWebhookHandler,
  type WebhookHandlerOptions,
} from 'invoicing-service-sdk/webhooks';

/** Starts a server on 127.0.0.1, port 0; resolves to its base URL and a close function. */
export async function listen(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A tiny Node http -> Fetch `Request` bridge, as runtimes like Bun or Deno do natively. */
export function fetchBridge(handler: (request: Request) => Promise<Response>): Server {
  return createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    const method = req.method ?? 'GET';
    const hasBody = method !== 'GET' && method !== 'HEAD';
    const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, {
      method,
      headers,
      ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
    });
    const response = await handler(request);
    res.statusCode = response.status;
    response.headers.forEach((value, name) => {
      res.setHeader(name, value);
    });
    res.end(Buffer.from(await response.arrayBuffer()));
  });
}

/** Posts a body in chunks without a Content-Length (chunked transfer encoding). */
export function postChunked(url: string, chunks: readonly string[], headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    // The server may close the connection after an early 413; that is not a failure here.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' ? undefined : reject(error)));
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

/** Starts one webhook handler with `options` on a real loopback server; resolves to its URL. */
export type StartHandler = (options: WebhookHandlerOptions) => Promise<string>;

/**
 * Both handlers, each behind its own loopback server: the Node handler on node:http, and the Fetch handler behind
 * `bridge` (a buffering bridge by default). Every server started is pushed to `closers`, for the test's afterEach.
 */
export function handlerStarters(
  closers: (() => Promise<unknown>)[],
  bridge: { label: string; make: (handler: (request: Request) => Promise<Response>) => Server } = {
    label: 'a node:http bridge',
    make: fetchBridge,
  },
): [string, StartHandler][] {
  const start = async (server: Server) => {
    const started = await listen(server);
    closers.push(started.close);
    return started.url;
  };
  return [
    ['createNodeWebhookHandler on node:http', (options) => start(createServer(createNodeWebhookHandler(options)))],
    [`createWebhookHandler behind ${bridge.label}`, (options) => start(bridge.make(createWebhookHandler(options)))],
  ];
}
