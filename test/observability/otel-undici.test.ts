// Issue 19: with the real undici instrumentation of OpenTelemetry (what `@opentelemetry/auto-instrumentations-node`
// enables for Node's fetch), the HTTP span of each attempt is a child of the SDK's call span, and the service receives
// one traceparent: the HTTP span's, in the call span's trace.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ServiceClient } from 'invoicing-service-sdk';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { listenOnLoopback } from '../helpers/loopback.js';
import { validModel } from '../helpers/model.js';
import { type InstalledOtel, installOtel } from '../helpers/otel.js';

let arrivals: IncomingHttpHeaders[];
let answers: number[];
let baseUrl: string;
let closeServer: () => Promise<void>;
let installed: InstalledOtel;
let undici: UndiciInstrumentation;

beforeAll(async () => {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push(req.headers);
      const status = answers.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(
        JSON.stringify(
          status === 200 ? { success: true, message: 'ok' } : { success: false, error_code: 'RATE_LIMITED' },
        ),
      );
    });
  });
  const started = await listenOnLoopback(server);
  baseUrl = `http://127.0.0.1:${started.port}`;
  closeServer = started.close;
});
afterAll(() => closeServer());
beforeEach(() => {
  arrivals = [];
  answers = [];
  installed = installOtel();
  undici = new UndiciInstrumentation();
  undici.setTracerProvider(trace());
  undici.enable();
});
afterEach(async () => {
  undici.disable();
  await installed.uninstall();
});

function trace() {
  return installed.tracerProvider;
}

it("each attempt's undici span is a child of the call span, and the service gets one traceparent in its trace", async () => {
  answers.push(429);
  const client = new ServiceClient({ apiKey: 'juniper', baseUrl, preflight: 'off' });
  await client.createEwayBill('doc_undici', validModel());
  const spans = installed.exporter.getFinishedSpans();
  const call = spans.find((s) => s.instrumentationScope.name === 'invoicing-service-sdk') as ReadableSpan;
  const http = spans.filter((s) => s.instrumentationScope.name.includes('undici'));
  expect(http).toHaveLength(2);
  for (const span of http) expect(span.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
  expect(arrivals).toHaveLength(2);
  for (const [i, headers] of arrivals.entries()) {
    // One value: the SDK leaves the header to the instrumentation, which would append to one already set.
    const value = String(headers.traceparent);
    expect(value).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [, traceId, spanId] = value.split('-');
    expect(traceId).toBe(call.spanContext().traceId);
    expect(spanId).toBe(http[i]?.spanContext().spanId);
  }
});
