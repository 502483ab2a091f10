// The application's side of OpenTelemetry in the runtime smoke, as the OTel SDK sets it up: a tracer provider with an
// in-memory exporter and the W3C trace-context propagator (from the repository's devDependencies). The SDK finds them
// through the API's process-wide registry; it never imports @opentelemetry/api itself.
import { propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

/** Registers OpenTelemetry; returns what the spans of the run were, once it is over. */
export function registerOtel() {
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return () => exporter.getFinishedSpans().map((span) => ({ name: span.name, error: span.attributes['error.type'] }));
}
