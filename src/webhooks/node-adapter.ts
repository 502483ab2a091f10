import { answerDelivery, type DeliveryAnswer, refuse } from './delivery.js';
import { resolveHandlerOptions, type WebhookHandlerOptions } from './handler-options.js';
import { isRawBody, normaliseRawBody, RAW_BODY_HELP } from './raw-body.js';
import { announcesTooLarge, bodyTimedOut, readLimited, TIMED_OUT, TOO_LARGE } from './read-body.js';

/** Request headers as Node's `http` module gives them (names in lower case; repeated headers as arrays). */
export type NodeHeaders = Record<string, string | string[] | undefined>;

/**
 * The part of a Node `http.IncomingMessage` (or an Express request) the adapter uses. `body` and `rawBody`
 * are read when a body parser or the platform already consumed the stream.
 */
export interface NodeRequestLike extends AsyncIterable<unknown> {
  method?: string | undefined;
  headers: NodeHeaders;
  body?: unknown;
  rawBody?: unknown;
  readonly readableEnded?: boolean | undefined;
}

/** The part of a Node `http.ServerResponse` (or an Express response) the adapter uses. */
export interface NodeResponseLike {
  statusCode: number;
  readonly headersSent?: boolean | undefined;
  setHeader(name: string, value: string): unknown;
  end(chunk: string): unknown;
}

/** The part of a Fastify request the adapter uses: the body its content-type parser produced. */
export interface FastifyRequestLike {
  method: string;
  headers: NodeHeaders;
  body?: unknown;
  rawBody?: unknown;
  raw: unknown;
}

/** The part of a Fastify reply the adapter uses. */
export interface FastifyReplyLike {
  raw: unknown;
  code(statusCode: number): unknown;
  header(key: string, value: string): unknown;
  send(payload: string): unknown;
}

/**
 * A webhook endpoint for Node's `http` module, Express and Fastify. It never rejects: every outcome is an answer.
 * Use it as `http.createServer(handler)`, `app.post(path, handler)` (Express) or `fastify.post(path, handler)`.
 */
export type NodeWebhookHandler = (
  request: NodeRequestLike | FastifyRequestLike,
  response: NodeResponseLike | FastifyReplyLike,
) => Promise<void>;

function isFastifyRequest(value: NodeRequestLike | FastifyRequestLike): value is FastifyRequestLike {
  return 'raw' in value && typeof value.raw === 'object' && value.raw !== null;
}

function isFastifyReply(value: NodeResponseLike | FastifyReplyLike): value is FastifyReplyLike {
  const reply = value as Partial<FastifyReplyLike>;
  return 'raw' in value && typeof reply.code === 'function' && typeof reply.send === 'function';
}

function write(response: NodeResponseLike | FastifyReplyLike, answer: DeliveryAnswer): void {
  if (isFastifyReply(response)) {
    response.code(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) response.header(name, value);
    response.send(answer.body);
    return;
  }
  if (response.headersSent) return;
  response.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
  response.end(answer.body);
}

function byteLength(body: string | Uint8Array): number {
  return typeof body === 'string' ? new TextEncoder().encode(body).byteLength : body.byteLength;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The chunks of a Node request; a Readable's own iterator is asked not to destroy the socket when left early. */
function chunksOf(request: NodeRequestLike): AsyncIterable<unknown> {
  const readable = request as NodeRequestLike & {
    iterator?: (options: { destroyOnReturn: boolean }) => AsyncIterable<unknown>;
  };
  // Destroying the request on a too-large body would reset the connection before the 413 is sent.
  return typeof readable.iterator === 'function' ? readable.iterator({ destroyOnReturn: false }) : request;
}

/** Where the raw body is: already buffered by a parser or platform, still in the stream, or parsed (unusable). */
function bufferedBody(request: NodeRequestLike | FastifyRequestLike): unknown {
  if (isRawBody(request.rawBody)) return request.rawBody;
  return request.body;
}

/**
 * Makes a webhook endpoint for Node's `http` module, Express and Fastify, with the same checks and answers as
 * `createWebhookHandler` (408 when the body is not in full within `bodyTimeoutMs`). It reads the raw body from the request stream, or takes `req.rawBody` or a raw `req.body`
 * (a Buffer or string from `express.raw()`, or from a Fastify content-type parser with `parseAs: 'buffer'`).
 * A body that a JSON parser already turned into an object is refused with a 500 and a cause that says how to fix it.
 *
 * @throws {TypeError} When an option is wrong (checked here, not at the first request).
 * @example
 * app.post('/webhooks', createNodeWebhookHandler({ secret, onEvent })); // Express: no express.json() before it
 * http.createServer(createNodeWebhookHandler({ secret, onEvent })).listen(3000);
 */
export function createNodeWebhookHandler(options: WebhookHandlerOptions): NodeWebhookHandler {
  const resolved = resolveHandlerOptions(options);

  async function answer(request: NodeRequestLike | FastifyRequestLike): Promise<DeliveryAnswer> {
    const method = (request.method ?? '').toUpperCase();
    if (method !== 'POST') {
      const cause = new Error(`Webhook deliveries are POST requests; got ${method || 'no method'}.`);
      return refuse(resolved, 405, 'METHOD_NOT_ALLOWED', cause, { headers: { allow: 'POST' } });
    }
    const tooLarge = new Error(`The body is larger than maxBodyBytes (${resolved.maxBodyBytes} bytes).`);
    if (announcesTooLarge(request.headers['content-length'], resolved.maxBodyBytes)) {
      return refuse(resolved, 413, 'PAYLOAD_TOO_LARGE', tooLarge, { headers: { connection: 'close' } });
    }
    const signature = firstHeader(request.headers['x-signature']);
    const buffered = bufferedBody(request);
    let body: string | Uint8Array | typeof TOO_LARGE | typeof TIMED_OUT;
    if (isRawBody(buffered)) {
      body = normaliseRawBody(buffered);
      if (byteLength(body) > resolved.maxBodyBytes) body = TOO_LARGE;
    } else if (buffered === undefined && isFastifyRequest(request)) {
      // Fastify leaves the body undefined when the request has none.
      body = '';
    } else if (buffered === undefined && !isFastifyRequest(request) && request.readableEnded !== true) {
      // On a timeout the stream is left alone: destroying it now would reset the socket before the 408 is sent,
      // and the 408 carries `connection: close`, so Node closes the connection once the answer is out.
      body = await readLimited(chunksOf(request), resolved.maxBodyBytes, { timeoutMs: resolved.bodyTimeoutMs });
    } else {
      const how = buffered === undefined ? 'read' : 'parsed';
      const cause = new TypeError(`The webhook request body was ${how} before the webhook handler. ${RAW_BODY_HELP}`);
      return refuse(resolved, 500, '', cause);
    }
    if (body === TOO_LARGE) {
      return refuse(resolved, 413, 'PAYLOAD_TOO_LARGE', tooLarge, { headers: { connection: 'close' } });
    }
    if (body === TIMED_OUT) {
      const cause = bodyTimedOut(resolved.bodyTimeoutMs);
      return refuse(resolved, 408, 'BODY_TIMEOUT', cause, { headers: { connection: 'close' } });
    }
    return answerDelivery(resolved, body, signature);
  }

  return async (request, response) => {
    let result: DeliveryAnswer;
    try {
      result = await answer(request);
    } catch (error) {
      result = refuse(resolved, 500, '', error);
    }
    write(response, result);
  };
}
