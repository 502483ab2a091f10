import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MockEmulator } from 'invoicing-service-sdk/testing';

/** Options of {@link post}. */
export interface PostOptions {
  /** The API key; `null` sends no Authorization header. @default service.apiKey */
  key?: string | null;
  /** A whole Authorization header value, instead of `Bearer <key>`. */
  authorization?: string;
  /** @default 'application/json' */
  contentType?: string | null;
  /** A raw body; otherwise `model` is sent as JSON. */
  raw?: string;
  method?: string;
}

/** Sends a create-e-way-bill request straight to the emulator core (no network, no msw). */
export function post(
  service: MockEmulator,
  hashId: string,
  model: unknown,
  options: PostOptions = {},
): Promise<Response> {
  const headers = new Headers();
  const key = options.key === undefined ? service.apiKey : options.key;
  if (options.authorization !== undefined) headers.set('authorization', options.authorization);
  else if (key !== null) headers.set('authorization', `Bearer ${key}`);
  const contentType = options.contentType === undefined ? 'application/json' : options.contentType;
  if (contentType !== null) headers.set('content-type', contentType);
  const method = options.method ?? 'POST';
  return service.handle(
    new Request(`${service.baseUrl}/v2/ewaybill/${encodeURIComponent(hashId)}`, {
      method,
      headers,
      ...(method === 'GET' ? {} : { body: options.raw ?? JSON.stringify(model) }),
    }),
  );
}

/** A clock that only moves when told to. */
export function manualClock(start = 1_000_000): { now: () => number; advance(ms: number): void } {
  let t = start;
  return {
    now: () => t,
    advance(ms) {
      t += ms;
    },
  };
}

/** A webhook receiver on 127.0.0.1 that answers 200 and keeps each body it got, in order. */
export async function recordingReceiver(): Promise<{ url: string; received: string[]; close(): Promise<void> }> {
  const received: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
