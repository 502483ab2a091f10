// Node, Bun and Deno: run the smoke with the config from SMOKE_CONFIG and print the result as one JSON line.
// With the OpenTelemetry SDK registered (an in-memory exporter and the W3C propagator, from the repository's
// devDependencies), so each runtime also shows the optional peer `@opentelemetry/api` loading and tracing the calls.
import { propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import * as root from '../../dist/index.js';
import * as webhooks from '../../dist/webhooks.js';
import { smoke } from './smoke.mjs';

const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

// Since 0.2.0 the webhook names live in their own entry only.
const sdk = { ...root, ...webhooks };

const config = JSON.parse(globalThis.process?.env?.SMOKE_CONFIG ?? globalThis.Deno?.env.get('SMOKE_CONFIG') ?? '{}');
const result = await smoke(sdk, config);
result.spans = exporter.getFinishedSpans().map((span) => ({ name: span.name, error: span.attributes['error.type'] }));
console.log(JSON.stringify(result));
