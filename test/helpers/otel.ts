// The real OpenTelemetry SDK, registered globally for one test: spans to an in-memory exporter, metrics to a reader
// collected on demand, the async-hooks context manager and the W3C trace-context propagator (as the OTel Node SDK
// registers them).
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

export class CollectingReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface InstalledOtel {
  readonly exporter: InMemorySpanExporter;
  readonly tracerProvider: BasicTracerProvider;
  readonly reader: CollectingReader;
  /** Shuts the providers down and unregisters everything. */
  uninstall(): Promise<void>;
}

export function installOtel(): InstalledOtel {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    exporter,
    tracerProvider,
    reader,
    async uninstall() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      contextManager.disable();
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
    },
  };
}
