// Issue 19: OpenTelemetry traces and metrics of the client's calls, through the real OpenTelemetry SDK (trace-base with
// an in-memory exporter, sdk-metrics with a reader collected on demand) against a real node:http server on loopback.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { context, metrics, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, type InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createProcessRateLimiter, PortalError, ServiceClient } from 'invoicing-service-sdk';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listenOnLoopback } from '../helpers/loopback.js';
import { validModel } from '../helpers/model.js';
import { type CollectingReader, type InstalledOtel, installOtel } from '../helpers/otel.js';

/** A key that looks like a word, so that any place it leaks into is found by a plain text search. */
const KEY = 'marigold';

type Reply = { status: number; body: unknown; headers?: Record<string, string> };
let replies: Reply[];
let arrivals: { url: string; headers: IncomingHttpHeaders; at: number }[];
let baseUrl: string;
let closeServer: () => Promise<void>;
let exporter: InMemorySpanExporter;
let reader: CollectingReader;
let installed: InstalledOtel;

beforeAll(async () => {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push({ url: req.url ?? '', headers: req.headers, at: Date.now() });
      const reply = replies.shift() ?? {
        status: 200,
        body: { success: true, message: 'E-way bill 331000123456 generated', ewaybill_number: 331000123456 },
      };
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
    });
  });
  const started = await listenOnLoopback(server);
  baseUrl = `http://127.0.0.1:${started.port}`;
  closeServer = started.close;
});
afterAll(() => closeServer());

beforeEach(() => {
  replies = [];
  arrivals = [];
  installed = installOtel();
  ({ exporter, reader } = installed);
});
afterEach(() => installed.uninstall());

const clientOf = () =>
  new ServiceClient({
    apiKey: KEY,
    baseUrl,
    preflight: 'off',
    rateLimiter: createProcessRateLimiter({ interval: 300 }),
  });

const portalRefusal: Reply = {
  status: 400,
  body: { success: false, error_code: 'PORTAL_ERROR_238', message: 'Invalid auth token', errors: {} },
  headers: { 'x-request-id': 'req_portal_238' },
};
const tooMany: Reply = {
  status: 429,
  body: { success: false, error_code: 'RATE_LIMITED', message: 'Too many requests', errors: {} },
  headers: { 'retry-after': '0' },
};

async function collected(): Promise<ResourceMetrics> {
  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  return resourceMetrics;
}

function metric(resource: ResourceMetrics, name: string) {
  return resource.scopeMetrics.flatMap((scope) => scope.metrics).find((m) => m.descriptor.name === name);
}

function callSpans(): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.instrumentationScope.name === 'invoicing-service-sdk');
}

describe('traces', () => {
  it('a call that waited, was retried after a 429 and failed with a portal error: one CLIENT span that says so', async () => {
    const client = clientOf();
    replies.push({ status: 200, body: { success: true, message: 'ok', ewaybill_number: 1 } }, tooMany, portalRefusal);
    const first = client.createEwayBill('doc_first', validModel());
    const failing = client.createEwayBill('doc_123', validModel()).catch((error: unknown) => error);
    await first;
    const error = await failing;
    expect(error).toBeInstanceOf(PortalError);

    const spans = callSpans();
    expect(spans.map((span) => span.name)).toEqual([
      'POST /v2/ewaybill/{doc_hash_id}',
      'POST /v2/ewaybill/{doc_hash_id}',
    ]);
    const span = spans[1] as ReadableSpan;
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'PORTAL_ERROR' });
    const port = Number(new URL(baseUrl).port);
    expect(span.attributes).toMatchObject({
      'http.request.method': 'POST',
      'server.address': '127.0.0.1',
      'server.port': port,
      'url.template': '/v2/ewaybill/{doc_hash_id}',
      'url.full': `${baseUrl}/v2/ewaybill/doc_123`,
      'http.response.status_code': 400,
      'error.type': 'PORTAL_ERROR',
      'http.request.resend_count': 1,
      'invoicing_service.doc_hash_id': 'doc_123',
      'invoicing_service.portal_code': 238,
      'invoicing_service.may_have_succeeded': false,
      'invoicing_service.request_id': 'req_portal_238',
    });
    // It waited for the first call's slot (300 ms interval), then again after the 429.
    expect(span.attributes['invoicing_service.rate_limit.wait_ms']).toBeGreaterThanOrEqual(200);
    expect(span.events.map((event) => event.name)).toEqual([
      'invoicing_service.attempt',
      'invoicing_service.retry',
      'invoicing_service.attempt',
    ]);
    expect(span.events[0]?.attributes).toMatchObject({
      'invoicing_service.attempt': 1,
      'http.response.status_code': 429,
      'error.type': 'RATE_LIMITED',
    });
    expect(span.events[1]?.attributes).toMatchObject({
      'invoicing_service.attempt': 1,
      'invoicing_service.retry.reason': 'RATE_LIMITED',
    });
    expect(span.events[2]?.attributes).toMatchObject({
      'invoicing_service.attempt': 2,
      'error.type': 'PORTAL_ERROR',
      'invoicing_service.request_id': 'req_portal_238',
    });
    expect(span.events[0]?.attributes?.['invoicing_service.request_id']).toBeUndefined();
    const first200 = spans[0] as ReadableSpan;
    expect(first200.status.code).toBe(SpanStatusCode.UNSET);
    expect(first200.attributes['http.response.status_code']).toBe(200);
    expect(first200.attributes['error.type']).toBeUndefined();
  });

  it('the W3C traceparent of the call span reaches the service, under the application span that made the call', async () => {
    const client = clientOf();
    replies.push(tooMany);
    const tracer = trace.getTracer('partner-app');
    await tracer.startActiveSpan('nightly e-way bills', async (parent) => {
      await client.createEwayBill('doc_traced', validModel());
      parent.end();
    });
    const [span] = callSpans();
    const parent = exporter.getFinishedSpans().find((s) => s.name === 'nightly e-way bills') as ReadableSpan;
    expect(span?.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(span?.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(arrivals).toHaveLength(2);
    for (const arrival of arrivals) {
      const [, traceId, spanId] = String(arrival.headers.traceparent).split('-');
      expect(traceId).toBe(span?.spanContext().traceId);
      expect(spanId).toBe(span?.spanContext().spanId);
    }
  });

  it("the span is active while fetch runs: a fetch instrumentation's span becomes its child", async () => {
    const tracer = trace.getTracer('fetch-instrumentation');
    const instrumentedFetch: typeof fetch = (input, init) =>
      tracer.startActiveSpan('HTTP POST (fetch)', async (span) => {
        try {
          return await fetch(input, init);
        } finally {
          span.end();
        }
      });
    const client = new ServiceClient({ apiKey: KEY, baseUrl, preflight: 'off', fetch: instrumentedFetch });
    await client.createEwayBill('doc_child', validModel());
    const [call] = callSpans();
    const child = exporter.getFinishedSpans().find((s) => s.name === 'HTTP POST (fetch)');
    expect(child?.parentSpanContext?.spanId).toBe(call?.spanContext().spanId);
  });

  it("a call's own traceparent header is sent as given", async () => {
    const own = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await clientOf().request('GET', '/v2/product/list', { headers: { traceparent: own } });
    expect(arrivals[0]?.headers.traceparent).toBe(own);
    // No route given: the span is named by the method alone (the HTTP semantic conventions), with no url.template.
    expect(callSpans()[0]?.name).toBe('GET');
    expect(callSpans()[0]?.attributes).not.toHaveProperty(['url.template']);
    expect(callSpans()[0]?.attributes['invoicing_service.doc_hash_id']).toBeUndefined();
  });

  it('the API key appears in no span name, attribute, event or status, nor in any metric', async () => {
    const client = clientOf();
    replies.push(tooMany, portalRefusal);
    await client.createEwayBill('doc_key', validModel()).catch(() => undefined);
    await client.request('GET', '/v2/product/list');
    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBe(2);
    const text = JSON.stringify(
      spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })),
    );
    expect(text).toContain('doc_key');
    expect(text.toLowerCase()).not.toContain(KEY);
    const metricText = JSON.stringify(await collected());
    expect(metricText).toContain('http.client.request.duration');
    expect(metricText.toLowerCase()).not.toContain(KEY);
  });

  it('http.request.resend_count is set only on a retried call, as the semantic conventions recommend', async () => {
    const client = clientOf();
    replies.push(tooMany);
    await client.request('GET', '/v2/product/list');
    await client.request('GET', '/v2/product/list');
    const [retried, once] = callSpans();
    expect(retried?.attributes['http.request.resend_count']).toBe(1);
    expect(once?.attributes).not.toHaveProperty(['http.request.resend_count']);
  });

  it('a request id that echoes the API key reaches no span attribute or event: the key is redacted in it', async () => {
    const client = clientOf();
    // A gateway that builds its request id from the Authorization header, on an error and on a success.
    replies.push(
      { ...portalRefusal, headers: { 'x-request-id': `req_${KEY}_1` } },
      { status: 200, body: { items: [] }, headers: { 'x-request-id': `req_${KEY}_2` } },
    );
    await client.createEwayBill('doc_echo', validModel(), { maxRetries: 0 }).catch(() => undefined);
    await client.request('GET', '/v2/product/list');
    const spans = callSpans();
    expect(spans.length).toBe(2);
    const text = JSON.stringify(spans.map((s) => ({ attributes: s.attributes, events: s.events })));
    expect(text).not.toContain(KEY);
    expect(spans.map((s) => s.attributes['invoicing_service.request_id'])).toEqual([
      'req_[redacted]_1',
      'req_[redacted]_2',
    ]);
  });

  it('a request() whose answer fails options.schema ends its span with status ERROR and error.type', async () => {
    const client = clientOf();
    replies.push({ status: 200, body: { items: 'not a list' } });
    const error = (await client
      .request('GET', '/v2/product/list', { schema: z.object({ items: z.array(z.string()) }) })
      .catch((e) => e)) as { code?: string };
    expect(error.code).toBe('UNEXPECTED_RESPONSE');
    const [span] = callSpans();
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'UNEXPECTED_RESPONSE' });
    expect(span?.attributes).toMatchObject({
      'http.response.status_code': 200,
      'error.type': 'UNEXPECTED_RESPONSE',
      'invoicing_service.may_have_succeeded': true,
    });
  });

  it('an abort after sending ends the span with may_have_succeeded: true', async () => {
    let release: () => void = () => {};
    const hanging = new Promise<void>((resolve) => {
      release = resolve;
    });
    let called: () => void = () => {};
    const fetchCalled = new Promise<void>((resolve) => {
      called = resolve;
    });
    const slowFetch: typeof fetch = async (input, init) => {
      called();
      await hanging;
      return fetch(input, init);
    };
    const client = new ServiceClient({ apiKey: KEY, baseUrl, preflight: 'off', fetch: slowFetch });
    const controller = new AbortController();
    const pending = client.createEwayBill('doc_abort', validModel(), { signal: controller.signal }).catch((e) => e);
    await fetchCalled;
    controller.abort();
    release();
    const error = (await pending) as { code?: string };
    expect(error.code).toBe('ABORTED_AFTER_SEND');
    const [span] = callSpans();
    expect(span?.attributes).toMatchObject({
      'error.type': 'ABORTED_AFTER_SEND',
      'invoicing_service.may_have_succeeded': true,
    });
  });
});

describe('metrics', () => {
  it('records http.client.request.duration per attempt, the rate-limit wait, and a counter of 429s', async () => {
    const client = clientOf();
    replies.push(tooMany);
    await client.createEwayBill('doc_m1', validModel());
    await client.request('GET', '/v2/product/list', { route: '/v2/product/list' });
    const resource = await collected();

    const duration = metric(resource, 'http.client.request.duration');
    expect(duration?.descriptor.unit).toBe('s');
    const points = (duration?.dataPoints ?? []) as { attributes: Record<string, unknown>; value: { count: number } }[];
    const byStatus = (template: string, status: number) =>
      points.find(
        (p) => p.attributes['url.template'] === template && p.attributes['http.response.status_code'] === status,
      );
    expect(byStatus('/v2/ewaybill/{doc_hash_id}', 429)?.value.count).toBe(1);
    expect(byStatus('/v2/ewaybill/{doc_hash_id}', 429)?.attributes['error.type']).toBe('RATE_LIMITED');
    expect(byStatus('/v2/ewaybill/{doc_hash_id}', 200)?.value.count).toBe(1);
    expect(byStatus('/v2/product/list', 200)?.attributes).toMatchObject({
      'http.request.method': 'GET',
      'server.address': '127.0.0.1',
    });

    const wait = metric(resource, 'invoicing_service.rate_limit.wait');
    const waitPoints = (wait?.dataPoints ?? []) as { value: { count: number; sum: number } }[];
    expect(waitPoints.reduce((n, p) => n + p.value.count, 0)).toBe(3);
    // Three sends 300 ms apart on one key: about 600 ms of waiting in all.
    expect(waitPoints.reduce((n, p) => n + p.value.sum, 0)).toBeGreaterThan(0.4);

    const limited = metric(resource, 'invoicing_service.rate_limited');
    const limitedPoints = (limited?.dataPoints ?? []) as { attributes: Record<string, unknown>; value: number }[];
    expect(limitedPoints).toHaveLength(1);
    expect(limitedPoints[0]?.value).toBe(1);
    expect(String(limitedPoints[0]?.attributes['invoicing_service.budget'])).toMatch(/^[0-9a-f]{8}$/);
  });
});

describe('no provider registered', () => {
  it('with the API loaded and nothing registered, calls work, send no traceparent and record nothing', async () => {
    trace.disable();
    metrics.disable();
    await clientOf().createEwayBill('doc_plain', validModel());
    expect(arrivals[0]?.headers.traceparent).toBeUndefined();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('a context manager that throws never stops the call: it is sent once and resolves', async () => {
    const broken = {
      active: () => ROOT_CONTEXT,
      with: () => {
        throw new Error('context manager broke');
      },
      bind: <T>(_context: unknown, target: T) => target,
      enable() {
        return this;
      },
      disable() {
        return this;
      },
    };
    context.disable();
    context.setGlobalContextManager(broken);
    const result = await clientOf().createEwayBill('doc_broken_context', validModel());
    expect(result.message).toBe('E-way bill 331000123456 generated');
    expect(arrivals).toHaveLength(1);
  });

  it('a throwing exporter never changes the call: it still resolves', async () => {
    const throwing = new BasicTracerProvider({
      spanProcessors: [
        {
          onStart: () => {
            throw new Error('processor broke');
          },
          onEnd: () => {
            throw new Error('processor broke');
          },
          forceFlush: () => Promise.resolve(),
          shutdown: () => Promise.resolve(),
        },
      ],
    });
    trace.disable();
    trace.setGlobalTracerProvider(throwing);
    const result = await clientOf().createEwayBill('doc_throwing', validModel());
    expect(result.message).toBe('E-way bill 331000123456 generated');
    expect(arrivals).toHaveLength(1);
  });
});
