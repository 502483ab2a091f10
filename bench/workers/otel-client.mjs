// OpenTelemetry's cost per call: N sequential loopback POSTs per mode per round, CPU of this process only, the modes
// taking turns call by call in a random order. Modes: no OpenTelemetry in the process; @opentelemetry/api loaded with
// nothing registered (its registry present, empty); a tracer provider (sampling every span, a processor that discards
// it) and a meter provider (aggregating, never exported) registered, with the W3C propagator. The modes switch by
// swapping the API's process-wide registry object between calls (outside the measured bracket). Prints one JSON line
// per round.
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ServiceClient } from '../../dist/index.js';
import { check, model, noWaitLimiter, report } from './fixture.mjs';

const PORT = Number(process.env.PORT);
const N = Number(process.env.N ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const WARMUP = Number(process.env.WARMUP ?? 300);
const baseUrl = `http://127.0.0.1:${PORT}/api/partner`;
const client = new ServiceClient({
  apiKey: 'bench_otel_key_0123456789',
  baseUrl,
  rateLimiter: noWaitLimiter,
  preflight: 'off',
});

const KEY = Symbol.for('opentelemetry.js.api.1');
class Reader extends MetricReader {
  onForceFlush() {
    return Promise.resolve();
  }
  onShutdown() {
    return Promise.resolve();
  }
}
let exported = 0;
const discard = {
  export(spans, done) {
    exported += spans.length;
    done({ code: 0 });
  },
  shutdown: async () => {},
};
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(discard)] }));
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new Reader()] }));
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
const registered = globalThis[KEY];
const empty = { version: registered.version };

const modes = {
  'no OpenTelemetry': () => delete globalThis[KEY],
  'api loaded, nothing registered': () => {
    globalThis[KEY] = empty;
  },
  'tracer + meter registered': () => {
    globalThis[KEY] = registered;
  },
};
const names = Object.keys(modes);
const call = async () => (await client.createEwayBill('doc-1', model)).success;
for (const name of names) {
  modes[name]();
  for (let i = 0; i < WARMUP; i++) check((await call()) === true, `${name}: no success answer`);
}
check(exported >= WARMUP, `spans were not made (${exported})`);

let seed = 4_242;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
};
const order = [...names];
for (let round = 0; round < ROUNDS; round++) {
  const cpuUs = Object.fromEntries(names.map((name) => [name, 0]));
  globalThis.gc();
  const exportedBefore = exported;
  for (let i = 0; i < N; i++) {
    for (let k = order.length - 1; k > 0; k--) {
      const j = Math.floor(random() * (k + 1));
      [order[k], order[j]] = [order[j], order[k]];
    }
    for (const name of order) {
      modes[name]();
      const before = process.cpuUsage();
      await call();
      const used = process.cpuUsage(before);
      cpuUs[name] += used.user + used.system;
    }
  }
  check(exported - exportedBefore === N, `one span per traced call (${exported - exportedBefore} of ${N})`);
  report({ round, result: Object.fromEntries(names.map((name) => [name, { cpuUs: cpuUs[name] / N }])) });
}
