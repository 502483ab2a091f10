// OpenTelemetry for the client's calls, through the optional peer `@opentelemetry/api`. The send path calls these
// functions; without the peer (or before it loaded, or with no provider registered) they cost a branch and do nothing.
//
// One span per call (kind CLIENT, named `{method} {route}` as the HTTP client semantic conventions name it), active
// while each attempt's fetch runs; each attempt and each retry is a span event on it, not a child span, so that an
// application that also instruments fetch or undici sees one HTTP span per attempt as a child of the call's span. The
// API key is never an attribute: calls are told apart by `invoicing_service.budget`, a short hash of the key's id.
import type {
  Attributes,
  Context,
  Counter,
  Histogram,
  MeterProvider,
  Span,
  Tracer,
  TracerProvider,
} from '@opentelemetry/api';
import { ServiceError } from '../errors/service-error.js';
import { mayHaveSucceeded } from '../errors/transport-errors.js';
import { ATTRIBUTE_PREFIX, loadOtel, type Otel, otel, perProvider, SCOPE_NAME } from '../internal/otel.js';
import { SDK_VERSION } from './runtime.js';

/** What a call is, at its start. Never the API key, never the body. */
export interface CallStart {
  /** `'POST'`, `'GET'`, ... */
  readonly method: string;
  /** The URL template, for example `'/v2/ewaybill/{doc_hash_id}'` (the span's name is `{method} {route}`). */
  readonly route: string;
  /** The URL the call goes to (the base URL's origin; no credentials can be in it). */
  readonly url: string;
  /** The document the call is for, when there is one. */
  readonly docHashId?: string | undefined;
  /** A short hash of the rate-limit budget (never the key), for metric labels. */
  readonly budgetHash: string;
}

/** How one attempt ended. */
export interface AttemptEnd {
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Milliseconds the attempt waited for its rate-limit slot. */
  readonly queuedMs: number;
  /** Milliseconds from sending to the whole answer read (or the failure). */
  readonly durationMs: number;
  /** The HTTP status, when an answer arrived. */
  readonly status?: number | undefined;
  /** The SDK error code the attempt ended in, when it failed. */
  readonly code?: string | undefined;
}

/** How the whole call ended. */
export interface CallEnd {
  /** The last answer's status, when one arrived. */
  readonly status?: number | undefined;
  /** The error the call rejects with (an SDK error, an AbortError), or `undefined` on success. */
  readonly error?: unknown;
  /** How many attempts were sent after the first (`http.request.resend_count`). */
  readonly resendCount: number;
}

/** The telemetry of one call. Every method is safe to call in any order and never throws. */
export interface CallTelemetry {
  /** Runs `send` (one attempt's fetch and body read) with the call's span as the active context. */
  active<T>(send: () => Promise<T>): Promise<T>;
  /** Adds the call's trace context (`traceparent`) to an attempt's headers, through the application's propagator. */
  inject(headers: Headers): void;
  /** One attempt ended (success or not). */
  attemptEnded(end: AttemptEnd): void;
  /** The call will try again after `delayMs`, because of `reason` (an SDK error code). */
  retrying(attempt: number, reason: string, delayMs: number): void;
  /** The call settled. */
  end(end: CallEnd): void;
}

/** The instruments of one meter provider, or `undefined` when it records nothing. */
interface Instruments {
  readonly duration: Histogram;
  readonly wait: Histogram;
  readonly rateLimited: Counter;
}

// Seconds; the bucket boundaries the HTTP semantic conventions advise for `http.client.request.duration`.
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
// Seconds: a rate-limit wait is 0 or up to a few seconds per queued call before it.
const WAIT_BUCKETS = [0, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60];

let tracerOf: (() => Tracer | undefined) | undefined;
let instrumentsOf: (() => Instruments | undefined) | undefined;

function makeLookups(api: Otel): void {
  tracerOf = perProvider(
    () => {
      const provider = api.trace.getTracerProvider() as TracerProvider & { getDelegate?: () => TracerProvider };
      return provider.getDelegate?.() ?? provider;
    },
    (provider) => (provider as TracerProvider).getTracer(SCOPE_NAME, SDK_VERSION),
  );
  instrumentsOf = perProvider(
    () => api.metrics.getMeterProvider(),
    (provider) => {
      const meter = (provider as MeterProvider).getMeter(SCOPE_NAME, SDK_VERSION);
      if (meter === api.createNoopMeter()) return undefined;
      return {
        duration: meter.createHistogram('http.client.request.duration', {
          description: 'Duration of HTTP client requests (each attempt), from sending to the whole answer read.',
          unit: 's',
          advice: { explicitBucketBoundaries: DURATION_BUCKETS },
        }),
        wait: meter.createHistogram(`${ATTRIBUTE_PREFIX}rate_limit.wait`, {
          description: 'Time an attempt waited for its rate-limit slot (1 request per second per API key).',
          unit: 's',
          advice: { explicitBucketBoundaries: WAIT_BUCKETS },
        }),
        rateLimited: meter.createCounter(`${ATTRIBUTE_PREFIX}rate_limited`, {
          description: 'Answers 429 (rate limited) received from the service.',
          unit: '{response}',
        }),
      };
    },
  );
}

/** Loads the optional peer once; the client awaits it before its first send. Never rejects. */
export async function prepareTelemetry(): Promise<void> {
  if (tracerOf) return;
  const api = await loadOtel();
  if (api && !tracerOf) makeLookups(api);
}

/** The telemetry of a call, or `undefined` when there is nothing to record to (no peer, no provider). */
export function startCall(start: CallStart): CallTelemetry | undefined {
  const api = otel();
  if (!api || !tracerOf || !instrumentsOf) return undefined;
  try {
    const instruments = instrumentsOf();
    const tracer = tracerOf();
    const url = new URL(start.url);
    const port = url.port === '' ? (url.protocol === 'http:' ? 80 : 443) : Number(url.port);
    const common: Attributes = {
      'http.request.method': start.method,
      'server.address': url.hostname,
      'server.port': port,
      'url.template': start.route,
    };
    const parent = api.context.active();
    const span = tracer?.startSpan(
      `${start.method} ${start.route}`,
      {
        kind: api.SpanKind.CLIENT,
        attributes: {
          ...common,
          'url.full': `${url.origin}${url.pathname}${url.search}`,
          ...(start.docHashId === undefined ? {} : { [`${ATTRIBUTE_PREFIX}doc_hash_id`]: start.docHashId }),
          [`${ATTRIBUTE_PREFIX}budget`]: start.budgetHash,
        },
      },
      parent,
    );
    const recording = span?.isRecording() === true;
    if (!recording && !instruments) return undefined;
    return new OtelCall(api, recording ? span : undefined, parent, common, start.budgetHash, instruments);
  } catch {
    return undefined;
  }
}

/** Runs `record`; telemetry never changes a call's outcome. */
function safely(record: () => void): void {
  try {
    record();
  } catch {
    // A throwing exporter or instrument is the application's to see in its own diagnostics, not the call's failure.
  }
}

class OtelCall implements CallTelemetry {
  readonly #api: Otel;
  readonly #span: Span | undefined;
  readonly #context: Context;
  readonly #common: Attributes;
  readonly #budget: string;
  readonly #instruments: Instruments | undefined;
  #waitedMs = 0;
  #ended = false;

  constructor(
    api: Otel,
    span: Span | undefined,
    parent: Context,
    common: Attributes,
    budget: string,
    instruments: Instruments | undefined,
  ) {
    this.#api = api;
    this.#span = span;
    this.#context = span ? api.trace.setSpan(parent, span) : parent;
    this.#common = common;
    this.#budget = budget;
    this.#instruments = instruments;
  }

  active<T>(send: () => Promise<T>): Promise<T> {
    return this.#span ? this.#api.context.with(this.#context, send) : send();
  }

  inject(headers: Headers): void {
    if (!this.#span || headers.has('traceparent')) return;
    safely(() =>
      this.#api.propagation.inject(this.#context, headers, {
        set: (carrier, key, value) => carrier.set(key, value),
      }),
    );
  }

  attemptEnded(end: AttemptEnd): void {
    safely(() => {
      this.#waitedMs += end.queuedMs;
      this.#span?.addEvent(`${ATTRIBUTE_PREFIX}attempt`, {
        [`${ATTRIBUTE_PREFIX}attempt`]: end.attempt,
        [`${ATTRIBUTE_PREFIX}rate_limit.wait_ms`]: end.queuedMs,
        [`${ATTRIBUTE_PREFIX}duration_ms`]: end.durationMs,
        ...(end.status === undefined ? {} : { 'http.response.status_code': end.status }),
        ...(end.code === undefined ? {} : { 'error.type': end.code }),
      });
      const metrics = this.#instruments;
      if (!metrics) return;
      const perKey = { 'url.template': this.#common['url.template'], [`${ATTRIBUTE_PREFIX}budget`]: this.#budget };
      metrics.wait.record(end.queuedMs / 1000, perKey);
      metrics.duration.record(end.durationMs / 1000, {
        ...this.#common,
        ...(end.status === undefined ? {} : { 'http.response.status_code': end.status }),
        ...(end.code === undefined ? {} : { 'error.type': end.code }),
      });
      if (end.status === 429) metrics.rateLimited.add(1, perKey);
    });
  }

  retrying(attempt: number, reason: string, delayMs: number): void {
    safely(() =>
      this.#span?.addEvent(`${ATTRIBUTE_PREFIX}retry`, {
        [`${ATTRIBUTE_PREFIX}attempt`]: attempt,
        [`${ATTRIBUTE_PREFIX}retry.reason`]: reason,
        [`${ATTRIBUTE_PREFIX}retry.delay_ms`]: delayMs,
      }),
    );
  }

  end(end: CallEnd): void {
    const span = this.#span;
    if (!span || this.#ended) return;
    this.#ended = true;
    safely(() => {
      const error = end.error;
      const attributes: Attributes = {
        'http.request.resend_count': end.resendCount,
        [`${ATTRIBUTE_PREFIX}rate_limit.wait_ms`]: this.#waitedMs,
      };
      if (end.status !== undefined) attributes['http.response.status_code'] = end.status;
      if (error !== undefined) {
        const code = errorCode(error);
        attributes['error.type'] = code;
        attributes[`${ATTRIBUTE_PREFIX}may_have_succeeded`] = mayHaveSucceeded(error);
        const portalCode = (error as { portalCode?: unknown }).portalCode;
        if (typeof portalCode === 'number') attributes[`${ATTRIBUTE_PREFIX}portal_code`] = portalCode;
        span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: code });
      }
      span.setAttributes(attributes);
      span.end();
    });
  }
}

/** The SDK's error code of a call's error, or the error's name (`AbortError`), never its message. */
function errorCode(error: unknown): string {
  if (error instanceof ServiceError) return error.code;
  if (error instanceof Error) return error.name;
  return '_OTHER';
}
