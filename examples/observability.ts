// `npm run demo:otel`: what a partner's tracing backend receives from the SDK, printed instead of exported. Against
// the embedded mock service (no account, no network): one call that succeeds, then one that waits for the rate limit,
// is answered 429, is retried, and fails with a portal error. The OpenTelemetry SDK is set up here the way the OTel
// Node SDK sets it up (a tracer provider, a meter provider, the async-hooks context manager and the W3C propagator);
// docs/observability.md shows the same with `@opentelemetry/sdk-node` and an OTLP exporter.
// Run with Node >= 22.18 (it strips the TypeScript types); the package names resolve to the built dist/.
import { context, metrics, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { PortalError, ServiceClient } from 'invoicing-service-sdk';
import { buildEwayBillModel, startMockServer } from 'invoicing-service-sdk/testing';

const watchdog = setTimeout(() => {
  console.error('demo:otel: did not finish within 30 s; stopping.');
  process.exit(1);
}, 30_000);
watchdog.unref();

class Reader extends MetricReader {
  protected override onForceFlush = () => Promise.resolve();
  protected override onShutdown = () => Promise.resolve();
}
const spans = new InMemorySpanExporter();
const reader = new Reader();
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

const mock = await startMockServer();
try {
  const client = new ServiceClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl });
  const model = buildEwayBillModel();
  const tracer = trace.getTracer('partner-erp');
  await tracer.startActiveSpan('nightly e-way bills', async (run) => {
    await client.createEwayBill(mock.service.addDocument('INV-2026-0123'), model);
    // The next two requests the mock receives: a 429, then the portal's refusal 238.
    mock.service.failNext({ status: 429, errorCode: 'RATE_LIMITED', message: 'Too many requests' });
    mock.service.failNext({ portalError: 238 });
    const error = await client.createEwayBill(mock.service.addDocument('INV-2026-0124'), model).catch((e) => e);
    console.log(
      `The second call failed: ${error instanceof PortalError ? `PortalError ${error.portalCode}` : error}\n`,
    );
    run.end();
  });

  const traceparents = mock.service.requests.map((r) => r.headers.traceparent);
  const finished = spans.getFinishedSpans();
  const start = Math.min(...finished.map((s) => s.startTime[0] * 1e3 + s.startTime[1] / 1e6));
  const at = (t: [number, number]) => `${String(Math.round(t[0] * 1e3 + t[1] / 1e6 - start)).padStart(5)} ms`;
  for (const span of finished.toSorted((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])) {
    const depth = span.parentSpanContext ? '  ' : '';
    console.log(`${depth}${at(span.startTime)}  span "${span.name}" (${span.instrumentationScope.name})`);
    console.log(
      `${depth}          kind ${SpanKind[span.kind]}, status ${SpanStatusCode[span.status.code]}${span.status.message ? ` ${span.status.message}` : ''}, ${Math.round(span.duration[0] * 1e3 + span.duration[1] / 1e6)} ms`,
    );
    for (const [name, value] of Object.entries(span.attributes))
      console.log(`${depth}            ${name} = ${JSON.stringify(value)}`);
    for (const event of span.events) {
      const attributes = Object.entries(event.attributes ?? {}).map(
        ([k, v]) => `${k.replace('invoicing_service.', '')}=${v}`,
      );
      console.log(`${depth}          ${at(event.time)}  event ${event.name}: ${attributes.join(', ')}`);
    }
  }
  console.log(
    `\ntraceparent headers the mock received: ${traceparents.length} of ${traceparents.length} requests carried one: ${traceparents.every(Boolean)}`,
  );

  const { resourceMetrics } = await reader.collect();
  console.log('\nmetrics:');
  for (const metric of resourceMetrics.scopeMetrics.flatMap((s) => s.metrics)) {
    for (const point of metric.dataPoints as { attributes: object; value: number | { count: number; sum: number } }[]) {
      const value =
        typeof point.value === 'number'
          ? point.value
          : `count ${point.value.count}, sum ${point.value.sum.toFixed(3)} ${metric.descriptor.unit}`;
      console.log(`  ${metric.descriptor.name} ${JSON.stringify(point.attributes)}: ${value}`);
    }
  }
} finally {
  await mock.close();
}
