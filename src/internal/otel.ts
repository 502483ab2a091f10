// OpenTelemetry, as the application registered it. Every copy of `@opentelemetry/api` 1.x keeps its registrations
// (tracer provider, meter provider, context manager, propagator) in one process-wide registry,
// `globalThis[Symbol.for('opentelemetry.js.api.1')]`, so that copies of different versions see the same providers.
// The SDK reads that registry instead of importing the API: nothing to resolve at build time, so a partner's bundler
// (esbuild, Vite, webpack, wrangler) and Cloudflare's workerd never fail on an absent package, nothing is added to the
// bundle, and the application's own copy (the one its OTel SDK registered with) is the one in use. The optional peer
// dependency on `@opentelemetry/api` 1.x states the versions whose registry this is.
//
// Without a registration everything here answers `undefined`: a call costs a property read and nothing fails.
// The types below are the parts of the API's interfaces the SDK calls (structurally those of `@opentelemetry/api`).

/** The instrumentation scope of every span and instrument the SDK makes. */
import { builtinModule } from './builtin.js';
import { otelRegistry } from './otel-registry.js';

export const SCOPE_NAME = 'invoicing-service-sdk';

declare const __SDK_VERSION__: string;

/** The prefix of the SDK's own attributes. */
export const ATTRIBUTE_PREFIX = 'invoicing_service.';

export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue | undefined>;

export interface OtelContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): OtelContext;
  deleteValue(key: symbol): OtelContext;
}

export interface OtelSpan {
  spanContext(): { traceId: string; spanId: string; traceFlags: number };
  setAttribute(key: string, value: AttributeValue): unknown;
  setAttributes(attributes: Attributes): unknown;
  addEvent(name: string, attributes?: Attributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  updateName(name: string): unknown;
  end(): void;
  isRecording(): boolean;
}

export interface Tracer {
  startSpan(name: string, options: { kind: number; attributes?: Attributes }, context: OtelContext): OtelSpan;
}

interface Instrument {
  record(value: number, attributes?: Attributes): void;
  add(value: number, attributes?: Attributes): void;
}

interface InstrumentOptions {
  readonly description: string;
  readonly unit: string;
  readonly advice?: { explicitBucketBoundaries: number[] };
}

export interface Meter {
  createHistogram(name: string, options: InstrumentOptions): Pick<Instrument, 'record'>;
  createCounter(name: string, options: InstrumentOptions): Pick<Instrument, 'add'>;
  /** An observable gauge (API 1.9 and later); read through its callbacks when the metrics are collected. */
  createObservableGauge?(
    name: string,
    options: InstrumentOptions,
  ): {
    addCallback(
      callback: (result: { observe(value: number, attributes?: Attributes): void }) => void | Promise<void>,
    ): void;
  };
}

interface Registry {
  readonly version?: unknown;
  readonly trace?: { getTracer(name: string, version?: string): Tracer };
  readonly metrics?: { getMeter(name: string, version?: string): Meter };
  readonly context?: {
    active(): OtelContext;
    with<T>(context: OtelContext, fn: () => T, thisArg?: unknown): T;
  };
  readonly propagation?: {
    inject(
      context: OtelContext,
      carrier: unknown,
      setter: { set(carrier: unknown, key: string, value: string): void },
    ): void;
  };
}

/** `SpanKind` and `SpanStatusCode` of the API (numbers fixed by its 1.x releases). */
export const SPAN_KIND = { CLIENT: 2, CONSUMER: 4 } as const;
export const STATUS_ERROR = 2;

/** The context key under which the API keeps the active span (`createContextKey` is `Symbol.for`). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

const registry = (): Registry | undefined => otelRegistry() as Registry | undefined;

/** The root context, as the API's own (used when the application registered no context manager). */
class RootContext implements OtelContext {
  readonly #values: ReadonlyMap<symbol, unknown>;
  constructor(values: ReadonlyMap<symbol, unknown> = new Map()) {
    this.#values = values;
  }
  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }
  setValue(key: symbol, value: unknown): OtelContext {
    return new RootContext(new Map(this.#values).set(key, value));
  }
  deleteValue(key: symbol): OtelContext {
    const values = new Map(this.#values);
    values.delete(key);
    return new RootContext(values);
  }
}
const ROOT = /* @__PURE__ */ new RootContext();

interface Cached<T> {
  readonly provider: object | undefined;
  readonly value: T;
}

/** A value made from a registered provider, made again when the application registers another one. */
function perProvider<P extends object, T>(make: (provider: P) => T): (provider: P | undefined) => T | undefined {
  let cached: Cached<T | undefined> | undefined;
  return (provider) => {
    if (cached === undefined || cached.provider !== provider) {
      let value: T | undefined;
      try {
        value = provider ? make(provider) : undefined;
      } catch {
        value = undefined;
      }
      cached = { provider, value };
      return value;
    }
    return cached.value;
  };
}

/** What the SDK asks of OpenTelemetry. */
export interface Otel {
  /** The SDK's tracer, or `undefined` when no tracer provider is registered. */
  readonly tracer: Tracer | undefined;
  /** The SDK's meter from the registered meter provider, or `undefined`. */
  readonly meter: Meter | undefined;
  /** The active context (the application's span, when one is active). */
  active(): OtelContext;
  /** `context` with `span` as its active span. */
  withSpan(context: OtelContext, span: OtelSpan): OtelContext;
  /** Runs `fn` with `context` active (directly, without a context manager). */
  run<T>(context: OtelContext, fn: () => T): T;
  /** Adds the trace context of `context` to `headers`, through the registered propagator. */
  inject(context: OtelContext, headers: Record<string, string>): void;
}

/**
 * Makes a reader of the registry for one kind of user (the client, the webhook handlers): `make` turns a registered
 * meter into that user's instruments, once per meter provider.
 */
export function otelReader<M>(
  makeInstruments: (meter: Meter) => M,
): () => (Otel & { instruments: M | undefined }) | undefined {
  const tracerOf = perProvider((provider: NonNullable<Registry['trace']>) =>
    provider.getTracer(SCOPE_NAME, __SDK_VERSION__),
  );
  const meterOf = perProvider((provider: NonNullable<Registry['metrics']>) => {
    const meter = provider.getMeter(SCOPE_NAME, __SDK_VERSION__);
    return { meter, instruments: makeInstruments(meter) };
  });
  return () => {
    const found = registry();
    if (!found || (!found.trace && !found.metrics)) return undefined;
    const metered = meterOf(found.metrics);
    return {
      tracer: tracerOf(found.trace),
      meter: metered?.meter,
      instruments: metered?.instruments,
      active: () => found.context?.active() ?? ROOT,
      withSpan: (context, span) => context.setValue(SPAN_KEY, span),
      run: (context, fn) => runWith(found, context, fn),
      inject: (context, headers) =>
        found.propagation?.inject(context, headers, {
          set: (carrier, key, value) => {
            (carrier as Record<string, string>)[key.toLowerCase()] = value;
          },
        }),
    };
  };
}

/**
 * Whether something instruments the runtime's fetch (Node's undici): OpenTelemetry's undici instrumentation (and other
 * tracers) listen for each answer's headers on this diagnostics channel, and add their own `traceparent` to each
 * request, appending to one already set. (Not `undici:request:create`: the SDK's own write tracker listens there.)
 */
export function fetchInstrumented(): boolean {
  const channels = builtinModule('node:diagnostics_channel') as
    | { hasSubscribers?: (name: string) => boolean }
    | undefined;
  try {
    return channels?.hasSubscribers?.('undici:request:headers') === true;
  } catch {
    return false;
  }
}

/**
 * Runs `fn` once, with `context` active through the registered context manager. A context manager that throws before
 * it called `fn` does not stop the work: `fn` then runs without it (never twice).
 */
function runWith<T>(found: Registry, context: OtelContext, fn: () => T): T {
  const manager = found.context;
  if (!manager) return fn();
  let called = false;
  try {
    return manager.with(context, () => {
      called = true;
      return fn();
    });
  } catch (error) {
    if (called) throw error;
    return fn();
  }
}

/** Runs `record`; telemetry never changes what the SDK does. */
export function safely(record: () => void): void {
  try {
    record();
  } catch {
    // A throwing processor, exporter or instrument is the application's to see in its own diagnostics.
  }
}
