// Run by scripts/test-package.mjs inside the scratch project once @opentelemetry/api and the OTel trace SDK are
// installed, once as ESM and once as CommonJS. The line below is replaced with `import(...)` or `require(...)` of
// `sdk` and `testing`. The application registers a tracer provider and the W3C propagator; a call through the packed
// SDK against the mock server makes one CLIENT span, sends its traceparent, and the key is in no span.
/* LOAD */
const format = typeof require === 'function' ? 'require' : 'import';
const assert = (condition, message) => {
  if (!condition) throw new Error(`OpenTelemetry check (${format}) failed: ${message}`);
};
const { trace, propagation, SpanKind } = await import('@opentelemetry/api');
const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import(
  '@opentelemetry/sdk-trace-base'
);

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
trace.setGlobalTracerProvider(provider);
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
const mock = await testing.startMockServer({ rateLimit: false });
try {
  const client = new sdk.ServiceClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl });
  const doc = mock.service.addDocument({ hashId: `INV-OTEL-${format}` });
  await client.createEwayBill(doc, testing.buildEwayBillModel());
  const spans = exporter.getFinishedSpans();
  assert(spans.length === 1, `one span, got ${spans.length}`);
  const [span] = spans;
  assert(span.name === 'POST /v2/ewaybill/{doc_hash_id}', `span name ${span.name}`);
  assert(span.kind === SpanKind.CLIENT, 'kind CLIENT');
  assert(span.attributes['invoicing_service.doc_hash_id'] === doc, 'the document id');
  assert(span.attributes['http.response.status_code'] === 200, 'the status');
  assert(!JSON.stringify([span.name, span.attributes, span.events]).includes(mock.apiKey), 'the key is in no span');
  console.log(`ok: ${format}: with @opentelemetry/api and a tracer provider, a call makes its CLIENT span`);
} finally {
  await mock.close();
  await provider.shutdown();
  trace.disable();
  propagation.disable();
}
