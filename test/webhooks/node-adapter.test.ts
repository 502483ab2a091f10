import { createServer } from 'node:http';
import express from 'express';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeWebhookHandler, type WebhookEvent, type WebhookHandlerOptions } from '../../src/webhooks/index.js';
import { DOCUMENT_EVENT, INVENTORY_EVENT, SECRET, signed } from './fixtures.js';
import { listen, postChunked } from './servers.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

function setup(overrides: Partial<WebhookHandlerOptions> = {}) {
  const events: WebhookEvent[] = [];
  const errors: unknown[] = [];
  const handler = createNodeWebhookHandler({
    secret: SECRET,
    onEvent: (event) => {
      events.push(event);
    },
    onError: (error) => errors.push(error),
    ...overrides,
  });
  return { handler, events, errors };
}

async function deliver(url: string, payload: unknown, signature?: string) {
  const sig = signed(payload);
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature': signature ?? sig.signature },
    body: sig.body,
  });
  return { status: response.status, body: await response.text() };
}

describe('createNodeWebhookHandler with node:http', () => {
  async function start(overrides: Partial<WebhookHandlerOptions> = {}) {
    const ctx = setup(overrides);
    const server = await listen(createServer(ctx.handler));
    closers.push(server.close);
    return { ...ctx, url: server.url };
  }

  it('answers 200 to a signed delivery over a real socket and passes the event on', async () => {
    const { url, events } = await start();
    expect(await deliver(url, DOCUMENT_EVENT)).toEqual({ status: 200, body: '{"ok":true}' });
    expect(events).toEqual([{ known: true, ...DOCUMENT_EVENT }]);
  });

  it('answers 401, 400, 200-duplicate and 500 as the rules say', async () => {
    let fail = false;
    const { url } = await start({
      onEvent: () => {
        if (fail) throw new Error('nope');
      },
    });
    expect((await deliver(url, DOCUMENT_EVENT, '0'.repeat(64))).status).toBe(401);
    expect((await deliver(url, { event_id: 1 })).status).toBe(400);
    expect((await deliver(url, DOCUMENT_EVENT)).status).toBe(200);
    expect(await deliver(url, DOCUMENT_EVENT)).toEqual({ status: 200, body: '{"ok":true,"duplicate":true}' });
    fail = true;
    expect((await deliver(url, INVENTORY_EVENT)).status).toBe(500);
  });

  it('answers 405 to GET', async () => {
    const { url } = await start();
    const response = await fetch(url);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('answers 413 to a chunked body that passes maxBodyBytes', async () => {
    const { url, events } = await start({ maxBodyBytes: 1000 });
    const chunks = Array.from({ length: 5 }, () => ' '.repeat(400));
    const answer = await postChunked(url, chunks, { 'x-signature': 'a'.repeat(64) });
    expect(answer.status).toBe(413);
    expect(events).toEqual([]);
  });

  it('answers 413 to a Content-Length above maxBodyBytes before reading', async () => {
    const { url } = await start({ maxBodyBytes: 10 });
    expect((await deliver(url, DOCUMENT_EVENT)).status).toBe(413);
  });
});

describe('createNodeWebhookHandler with Express', () => {
  async function start(configure: (app: express.Express, handler: ReturnType<typeof setup>['handler']) => void) {
    const ctx = setup();
    const app = express();
    configure(app, ctx.handler);
    const server = await listen(createServer(app));
    closers.push(server.close);
    return { ...ctx, url: server.url };
  }

  it('reads the raw body itself when no body parser ran', async () => {
    const { url, events } = await start((app, handler) => app.post('/webhooks', handler));
    expect((await deliver(`${url}/webhooks`, INVENTORY_EVENT)).status).toBe(200);
    expect(events).toHaveLength(1);
  });

  it('uses the Buffer from express.raw()', async () => {
    const { url, events } = await start((app, handler) =>
      app.post('/webhooks', express.raw({ type: 'application/json' }), handler),
    );
    expect((await deliver(`${url}/webhooks`, DOCUMENT_EVENT)).status).toBe(200);
    expect((await deliver(`${url}/webhooks`, DOCUMENT_EVENT, 'b'.repeat(64))).status).toBe(401);
    expect(events).toHaveLength(1);
  });

  it('answers 500 after express.json() and says to use express.raw()', async () => {
    const { url, events, errors } = await start((app, handler) => {
      app.use(express.json());
      app.post('/webhooks', handler);
    });
    const answer = await deliver(`${url}/webhooks`, DOCUMENT_EVENT);
    expect(answer.status).toBe(500);
    expect(answer.body).not.toContain('express');
    expect(String(errors[0])).toContain('express.raw(');
    expect(events).toEqual([]);
  });
});

describe('createNodeWebhookHandler with Fastify', () => {
  async function start(rawParser: boolean) {
    const ctx = setup();
    const app = Fastify();
    await app.register(async (scope) => {
      if (rawParser) {
        scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
      }
      scope.post('/webhooks', ctx.handler);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    return { ...ctx, url: `http://127.0.0.1:${port}/webhooks` };
  }

  it('verifies the Buffer from a parseAs buffer content-type parser', async () => {
    const { url, events } = await start(true);
    const answer = await deliver(url, DOCUMENT_EVENT);
    expect(answer).toEqual({ status: 200, body: '{"ok":true}' });
    expect((await deliver(url, INVENTORY_EVENT, 'c'.repeat(64))).status).toBe(401);
    expect(events).toEqual([{ known: true, ...DOCUMENT_EVENT }]);
  });

  it('answers 500 behind the default JSON parser and says how to get the raw body', async () => {
    const { url, errors } = await start(false);
    expect((await deliver(url, DOCUMENT_EVENT)).status).toBe(500);
    expect(String(errors[0])).toContain("parseAs: 'buffer'");
  });
});

describe('createNodeWebhookHandler body sources', () => {
  function fakeResponse() {
    const response = {
      statusCode: 0,
      headers: {} as Record<string, string>,
      body: '',
      setHeader(name: string, value: string) {
        response.headers[name] = value;
      },
      end(chunk: string) {
        response.body = chunk;
      },
    };
    return response;
  }

  function fakeRequest(fields: { body?: unknown; rawBody?: unknown; signature?: string; chunks?: string[] }) {
    return {
      method: 'POST',
      headers: { 'x-signature': fields.signature },
      body: fields.body,
      rawBody: fields.rawBody,
      async *[Symbol.asyncIterator]() {
        for (const chunk of fields.chunks ?? []) yield Buffer.from(chunk);
      },
    };
  }

  it('uses req.rawBody when a platform left one next to a parsed body (Cloud Functions, fastify-raw-body)', async () => {
    const { handler, events } = setup();
    const { body, signature } = signed(DOCUMENT_EVENT);
    const response = fakeResponse();
    await handler(fakeRequest({ body: JSON.parse(body), rawBody: Buffer.from(body), signature }), response);
    expect(response.statusCode).toBe(200);
    expect(events).toHaveLength(1);
  });

  it('uses a string body from express.text()', async () => {
    const { handler } = setup();
    const { body, signature } = signed(INVENTORY_EVENT);
    const response = fakeResponse();
    await handler(fakeRequest({ body, signature }), response);
    expect(response.statusCode).toBe(200);
  });

  it('reads an async-iterable request that has no Readable iterator()', async () => {
    const { handler } = setup();
    const { body, signature } = signed(DOCUMENT_EVENT);
    const response = fakeResponse();
    await handler(fakeRequest({ chunks: [body.slice(0, 10), body.slice(10)], signature }), response);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('application/json');
  });

  it('answers 500 when the stream was already consumed and nothing was kept', async () => {
    const { handler, errors } = setup();
    const response = fakeResponse();
    await handler({ ...fakeRequest({ signature: 'a'.repeat(64) }), readableEnded: true }, response);
    expect(response.statusCode).toBe(500);
    expect(String(errors[0])).toContain('was read before the webhook handler');
  });

  it('answers 401 to a Fastify request without a body', async () => {
    const { handler } = setup();
    const reply = {
      raw: {},
      status: 0,
      sent: '',
      code(status: number) {
        reply.status = status;
        return reply;
      },
      header: () => reply,
      send(payload: string) {
        reply.sent = payload;
        return reply;
      },
    };
    await handler({ method: 'POST', headers: {}, body: undefined, raw: {} }, reply);
    expect(reply.status).toBe(401);
    expect(JSON.parse(reply.sent)).toMatchObject({ error: 'WEBHOOK_VERIFICATION_FAILED' });
  });
});
