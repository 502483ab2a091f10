// Issue 28.4: telemetry stays bounded and private. `request('GET', '/v2/doc/' + id)` for 28 ids made 28 span names, 29
// `http.client.request.duration` series and 28 `rate_limit.wait` series (the raw path was the `url.template`), and
// `url.full` and the debug log lines carried the whole query (`token=sess_SECRET_TOKEN_123`). Through the real
// OpenTelemetry SDK against a real node:http server on loopback.
import { createServer } from 'node:http';
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { InMemorySpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ServiceClient } from 'invoicing-service-sdk';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../helpers/loopback.js';
import { validModel } from '../helpers/model.js';
import { type CollectingReader, type InstalledOtel, installOtel } from '../helpers/otel.js';

const KEY = 'sk_bounded_telemetry_key_0123';
const SECRET = 'sess_SECRET_TOKEN_123';
const PRIVATE_QUERY = { gstin: '29AAACI1681G1Z0', phone: '9876543210', email: 'a@b.in', token: SECRET };
const IDS = Array.from({ length: 28 }, (_, i) => `INV-2026-${String(i).padStart(4, '0')}`);
const noWait = { acquire: async () => undefined };

let baseUrl: string;
let closeServer: () => Promise<void>;
let arrivals: string[];
let exporter: InMemorySpanExporter;
let reader: CollectingReader;
let installed: InstalledOtel;

beforeAll(async () => {
  const server = createServer((req, res) => {
    arrivals.push(req.url ?? '');
    req.resume();
    req.on('end', () => {
      // One document is answered 429 first, as a busy key's calls are: its retry must not add series either.
      const limited = req.url?.includes('INV-2026-0005') && !arrivals.slice(0, -1).some((u) => u.includes('0005'));
      res.writeHead(limited ? 429 : 200, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(
        JSON.stringify(
          limited
            ? { success: false, error_code: 'RATE_LIMITED', message: 'slow down', errors: {} }
            : { success: true, message: 'E-way bill 331000123456 generated', hash_id: 'x' },
        ),
      );
    });
  });
  const started = await listenOnLoopback(server);
  baseUrl = `http://127.0.0.1:${started.port}/api/partner`;
  closeServer = started.close;
});
afterAll(() => closeServer());
beforeEach(() => {
  arrivals = [];
  installed = installOtel();
  ({ exporter, reader } = installed);
});
afterEach(() => installed.uninstall());

function logged() {
  const lines: string[] = [];
  const logger = {
    debug: (message: string, details?: Record<string, unknown>) => lines.push(`${message} ${JSON.stringify(details)}`),
    warn: (message: string, details?: Record<string, unknown>) => lines.push(`${message} ${JSON.stringify(details)}`),
  };
  return { lines, logger };
}

const clientWith = (logger?: ReturnType<typeof logged>['logger']) =>
  new ServiceClient({
    apiKey: KEY,
    baseUrl,
    preflight: 'off',
    rateLimiter: noWait,
    logger,
    logLevel: logger && 'debug',
  });

async function collected(): Promise<ResourceMetrics> {
  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  return resourceMetrics;
}

/** The data points (series) of one instrument. */
async function series(name: string): Promise<{ attributes: Record<string, unknown> }[]> {
  const found = (await collected()).scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  return (found?.dataPoints ?? []) as { attributes: Record<string, unknown> }[];
}

const sdkSpans = (): ReadableSpan[] =>
  exporter.getFinishedSpans().filter((span) => span.instrumentationScope.name === 'invoicing-service-sdk');

describe('bounded', () => {
  it("28 ids with route '/v2/doc/{id}': one span name, one series per instrument and status", async () => {
    const client = clientWith();
    for (const id of IDS) await client.request('GET', `/v2/doc/${id}`, { route: '/v2/doc/{id}' });
    expect(arrivals).toHaveLength(29);
    expect(new Set(sdkSpans().map((s) => s.name))).toEqual(new Set(['GET /v2/doc/{id}']));
    expect(sdkSpans()[0]?.attributes['url.template']).toBe('/v2/doc/{id}');
    const duration = await series('http.client.request.duration');
    // One series for the 200s and one for the single 429: per route and status, not per id.
    expect(duration.map((p) => [p.attributes['url.template'], p.attributes['http.response.status_code']])).toEqual([
      ['/v2/doc/{id}', 200],
      ['/v2/doc/{id}', 429],
    ]);
    const wait = await series('invoicing_service.rate_limit.wait');
    expect(wait).toHaveLength(1);
    expect(wait[0]?.attributes['url.template']).toBe('/v2/doc/{id}');
    expect(await series('invoicing_service.rate_limited')).toHaveLength(1);
  });

  it('28 ids without a route: the span is named by the method alone and no raw path is a name or a label', async () => {
    const client = clientWith();
    for (const id of IDS) await client.request('GET', `/v2/doc/${id}`);
    expect(new Set(sdkSpans().map((s) => s.name))).toEqual(new Set(['GET']));
    for (const span of sdkSpans()) expect(span.attributes).not.toHaveProperty(['url.template']);
    const duration = await series('http.client.request.duration');
    expect(duration).toHaveLength(2);
    expect(await series('invoicing_service.rate_limit.wait')).toHaveLength(1);
    const labels = JSON.stringify(await collected());
    expect(labels).not.toContain('/v2/doc');
    expect(labels).not.toContain('INV-2026');
  });

  it('createEwayBill keeps its fixed template for any document', async () => {
    const client = clientWith();
    for (const id of IDS.slice(0, 3)) await client.createEwayBill(id, validModel());
    expect(sdkSpans().map((s) => s.name)).toEqual(Array(3).fill('POST /v2/ewaybill/{doc_hash_id}'));
    expect(await series('invoicing_service.rate_limit.wait')).toHaveLength(1);
  });
});

describe('private', () => {
  it('the query values reach the service but no span, event, metric or log line: url.full says REDACTED', async () => {
    const { lines, logger } = logged();
    const client = clientWith(logger);
    for (const id of IDS.slice(4, 7)) {
      await client.request('GET', `/v2/doc/${id}`, { route: '/v2/doc/{id}', query: PRIVATE_QUERY });
    }
    await client.request('GET', '/v2/product/list', { query: PRIVATE_QUERY });
    // The service got the query as given (the 429 of INV-2026-0005 was retried).
    expect(arrivals.filter((url) => url.includes(`token=${SECRET}`))).toHaveLength(5);
    const spans = sdkSpans();
    expect(spans).toHaveLength(4);
    expect(spans[0]?.attributes['url.full']).toBe(
      `${baseUrl}/v2/doc/INV-2026-0004?gstin=REDACTED&phone=REDACTED&email=REDACTED&token=REDACTED`,
    );
    const everything = JSON.stringify({
      spans: spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })),
      metrics: await collected(),
      lines,
    });
    expect(lines.some((line) => line.includes('retrying'))).toBe(true);
    expect(lines.filter((line) => line.includes('token=REDACTED'))).toHaveLength(lines.length);
    for (const value of [...Object.values(PRIVATE_QUERY), encodeURIComponent('a@b.in'), KEY]) {
      expect(everything).not.toContain(value);
    }
  });
});

describe('the route option', () => {
  it.each([
    ['/v2/doc/{id}/items', '/v2/doc/INV-1', /options\.route '\/v2\/doc\/\{id\}\/items' is not a template of the path/],
    ['/v2/doc/{id}', '/v2/doc/INV-1/items', /is not a template of the path '\/v2\/doc\/INV-1\/items'/],
    ['/v2/docs/{id}', '/v2/doc/INV-1', /is not a template of the path/],
    ['v2/doc/{id}', '/v2/doc/INV-1', /options\.route .* must start with '\/'/],
    ['/v2/doc/{id', '/v2/doc/INV-1', /options\.route .* holds a brace outside a placeholder/],
    ['/v2/doc/{}', '/v2/doc/INV-1', /options\.route .* holds a brace outside a placeholder/],
    ['/v2/doc/{id}?x=1', '/v2/doc/INV-1', /options\.route .* must not hold \?/],
    [42, '/v2/doc/INV-1', /options\.route must be a string such as '\/v2\/doc\/\{id\}'; got a number/],
  ])('refuses route %s for path %s with a TypeError naming options.route, before sending', async (route, path, why) => {
    const error = await clientWith()
      .request('GET', path, { route: route as string })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(why);
    expect(arrivals).toEqual([]);
  });

  it('accepts a route whose placeholder is part of a segment, and one without placeholders', async () => {
    const client = clientWith();
    await client.request('GET', '/v2/doc/INV-1.json', { route: '/v2/doc/{id}.json' });
    await client.request('GET', '/v2/product/list', { route: '/v2/product/list' });
    expect(sdkSpans().map((s) => s.name)).toEqual(['GET /v2/doc/{id}.json', 'GET /v2/product/list']);
  });
});
