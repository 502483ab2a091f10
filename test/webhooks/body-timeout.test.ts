import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createNodeWebhookHandler } from '../../src/webhooks/index.js';
import { readLimited, TIMED_OUT } from '../../src/webhooks/read-body.js';
import { DOCUMENT_EVENT, SECRET, signed } from './fixtures.js';
import { handlerStarters } from './servers.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A Node http -> Fetch bridge that streams the body to the handler as it arrives (as Bun and Deno do). */
function streamingBridge(handler: (request: Request) => Promise<Response>) {
  return createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
    const request = new Request('http://127.0.0.1/', { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
    const response = await handler(request);
    res.statusCode = response.status;
    response.headers.forEach((value, name) => {
      res.setHeader(name, value);
    });
    res.end(Buffer.from(await response.arrayBuffer()));
  });
}

/**
 * Sends a delivery's headers and then its body one byte every `everyMs` over a raw socket, never finishing in time.
 * Resolves with what the server wrote and whether it closed the connection.
 */
function drip(url: string, everyMs: number): Promise<{ answer: string; closed: boolean }> {
  const { port } = new URL(url);
  const { body, signature } = signed(DOCUMENT_EVENT);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    let sent = 0;
    let timer: ReturnType<typeof setInterval> | undefined;
    const stop = () => clearInterval(timer);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // Writing into a connection the server closed is expected here.
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    socket.on('close', () => {
      stop();
      resolve({ answer, closed: true });
    });
    socket.on('connect', () => {
      socket.write(
        `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Signature: ${signature}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\n\r\n`,
      );
      timer = setInterval(() => {
        // Stop a byte short: the body is never complete, however slow the machine is.
        if (sent < body.length - 1 && !socket.destroyed) socket.write(body[sent++] ?? '');
      }, everyMs);
    });
    // A bound on the test itself, far above the deadline: a handler without a deadline fails here.
    setTimeout(() => {
      stop();
      socket.destroy();
      resolve({ answer, closed: false });
    }, 8_000).unref();
  });
}

const starters = handlerStarters(closers, { label: 'a streaming node:http bridge', make: streamingBridge });

describe.each(starters)('body deadline of %s', (_, start) => {
  it('answers 408 to a body dripped slower than bodyTimeoutMs and closes the connection', async () => {
    const errors: { status: number }[] = [];
    let called = false;
    const url = await start({
      secret: SECRET,
      onEvent: () => {
        called = true;
      },
      onError: (_error, info) => {
        errors.push(info);
      },
      bodyTimeoutMs: 200,
    });
    const { answer, closed } = await drip(url, 50);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('"error":"BODY_TIMEOUT"');
    expect(closed).toBe(true);
    expect(called).toBe(false);
    expect(errors).toEqual([{ status: 408 }]);
  });

  it('still answers 200 to a body that arrives in full before the deadline', async () => {
    const url = await start({ secret: SECRET, onEvent: () => {}, bodyTimeoutMs: 5_000 });
    const { body, signature } = signed(DOCUMENT_EVENT);
    const response = await fetch(url, { method: 'POST', headers: { 'x-signature': signature }, body });
    expect(response.status).toBe(200);
  });
});

describe('bodyTimeoutMs', () => {
  it('is checked when the handler is made', () => {
    expect(() => createNodeWebhookHandler({ secret: SECRET, onEvent: () => {}, bodyTimeoutMs: 0 })).toThrow(
      /bodyTimeoutMs must be a positive integer number of milliseconds/,
    );
  });

  it('leaves no timer behind once the body is read, or once it timed out', async () => {
    // The timers readLimited creates (told apart by their delays), tracked one by one: the process's timer count also
    // moves with other work on a loaded machine.
    const ours = new Set([60_000, 20]);
    const live = new Set<unknown>();
    let made = 0;
    const realSet = globalThis.setTimeout;
    const realClear = globalThis.clearTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((
      fn: (...args: unknown[]) => void,
      ms?: number,
      ...args: unknown[]
    ) => {
      const timer = realSet(() => {
        live.delete(timer);
        fn(...args);
      }, ms);
      if (ms !== undefined && ours.has(ms)) {
        live.add(timer);
        made++;
      }
      return timer;
    }) as typeof setTimeout);
    vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((timer: Parameters<typeof clearTimeout>[0]) => {
      live.delete(timer);
      realClear(timer);
    }) as typeof clearTimeout);
    try {
      async function* quick() {
        yield new Uint8Array([1, 2]);
      }
      expect(await readLimited(quick(), 10, { timeoutMs: 60_000 })).toEqual(new Uint8Array([1, 2]));
      expect(live.size).toBe(0);
      let stopped = 0;
      const never = { [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<unknown>>(() => {}) }) };
      expect(await readLimited(never, 10, { timeoutMs: 20, onTimeout: () => stopped++ })).toBe(TIMED_OUT);
      expect(stopped).toBe(1);
      expect(live.size).toBe(0);
      expect(made).toBe(2);
    } finally {
      vi.restoreAllMocks();
    }
  });
});
