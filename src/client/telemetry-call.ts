// The spans and instruments of the client's calls (see ./telemetry.ts, which imports this on first use).
//
// One span per call (kind CLIENT, named `{method} {route}` as the HTTP client semantic conventions name it, or `{method}`
// alone for a call without a route: a raw path never names a span nor labels a metric, which would make one of each per
// document), active while each attempt's fetch runs; each attempt and each retry is a span event on it, not a child
// span, so that an application that also instruments fetch or undici sees one HTTP span per attempt as a child of the
// call's span. The API key is never an attribute: calls are told apart by `invoicing_service.budget`, a short hash of
// the key's id.
import { ServiceError } from '../errors/service-error.js';
import { mayHaveSucceeded } from '../errors/transport-errors.js';
import {
  ATTRIBUTE_PREFIX,
  type Attributes,
  fetchInstrumented,
  type Meter,
  type Otel,
  type OtelContext,
  type OtelSpan,
  otelReader,
  SPAN_KIND,
  STATUS_ERROR,
  safely,
} from '../internal/otel.js';
import { withoutQueryValues } from '../internal/query-values.js';
import type { RateLimiter } from '../throttle/rate-limiter.js';
import { queueDepthGauge, watchQueue } from './telemetry-queue.js';

/** What a call is, at its start. Never the API key, never the body. */
export interface CallStart {
  /** `'POST'`, `'GET'`, ... */
  readonly method: string;
  /**
   * The URL template, for example `'/v2/ewaybill/{doc_hash_id}'` (the span's name is then `{method} {route}`), or
   * `undefined` when the caller named none (the span's name is then the method alone, and there is no `url.template`).
   */
  readonly route: string | undefined;
  /** The URL the call goes to (no credentials can be in it; its query values are replaced by `REDACTED`). */
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
  /** The request id the answer carried (`x-request-id` and the other common names), when it carried one. */
  readonly requestId?: string | undefined;
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
  /**
   * Adds the call's trace context (`traceparent`) to an attempt's headers, through the application's propagator;
   * not when the call set its own, nor when `runtimeFetch` requests are instrumented (that instrumentation adds its
   * HTTP span's, and a second value would make the header invalid).
   */
  inject(headers: Record<string, string>, runtimeFetch: boolean): void;
  /** One attempt ended (success or not). */
  attemptEnded(end: AttemptEnd): void;
  /** The call will try again after `delayMs`, because of `reason` (an SDK error code). */
  retrying(attempt: number, reason: string, delayMs: number): void;
  /** An attempt waits for `budgets` at `limiter`: the queue-depth gauge reports them. */
  queuing(limiter: RateLimiter, budgets: readonly string[]): void;
  /** The call settled. */
  end(end: CallEnd): void;
}

/** The client's instruments on one meter. */
interface Instruments {
  readonly duration: ReturnType<Meter['createHistogram']>;
  readonly wait: ReturnType<Meter['createHistogram']>;
  readonly rateLimited: ReturnType<Meter['createCounter']>;
}

// Seconds; the bucket boundaries the HTTP semantic conventions advise for `http.client.request.duration`.
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
// Seconds: a rate-limit wait is 0 or up to a few seconds per queued call before it.
const WAIT_BUCKETS = [0, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60];

const registered = /* @__PURE__ */ otelReader((meter): Instruments => {
  queueDepthGauge(meter, `${ATTRIBUTE_PREFIX}rate_limit.queue_depth`, `${ATTRIBUTE_PREFIX}budget`);
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
});

type Registered = NonNullable<ReturnType<typeof registered>>;

/** The telemetry of a call, or `undefined` when nothing records it (the provider was unregistered, or records nothing). */
export function beginCall(start: CallStart): CallTelemetry | undefined {
  const otel = registered();
  if (!otel) return undefined;
  try {
    const url = new URL(start.url);
    const port = url.port === '' ? (url.protocol === 'http:' ? 80 : 443) : Number(url.port);
    const common: Attributes = {
      'http.request.method': start.method,
      'server.address': url.hostname,
      'server.port': port,
      ...(start.route === undefined ? {} : { 'url.template': start.route }),
    };
    const parent = otel.active();
    const span = otel.tracer?.startSpan(
      start.route === undefined ? start.method : `${start.method} ${start.route}`,
      {
        kind: SPAN_KIND.CLIENT,
        attributes: {
          ...common,
          // The semantic conventions: `url.full` never holds credentials, and values that may be secret are REDACTED.
          'url.full': withoutQueryValues(`${url.origin}${url.pathname}${url.search}`),
          ...(start.docHashId === undefined ? {} : { [`${ATTRIBUTE_PREFIX}doc_hash_id`]: start.docHashId }),
          [`${ATTRIBUTE_PREFIX}budget`]: start.budgetHash,
        },
      },
      parent,
    );
    const recording = span?.isRecording() === true;
    if (!recording && !otel.instruments) return undefined;
    return new OtelCall(otel, recording ? span : undefined, parent, common, start.budgetHash);
  } catch {
    return undefined;
  }
}

class OtelCall implements CallTelemetry {
  readonly #otel: Otel;
  readonly #span: OtelSpan | undefined;
  readonly #context: OtelContext;
  readonly #common: Attributes;
  readonly #budget: string;
  readonly #instruments: Instruments | undefined;
  #waitedMs = 0;
  #requestId: string | undefined;
  #ended = false;

  constructor(otel: Registered, span: OtelSpan | undefined, parent: OtelContext, common: Attributes, budget: string) {
    this.#otel = otel;
    this.#span = span;
    this.#context = span ? otel.withSpan(parent, span) : parent;
    this.#common = common;
    this.#budget = budget;
    this.#instruments = otel.instruments;
  }

  active<T>(send: () => Promise<T>): Promise<T> {
    return this.#span ? this.#otel.run(this.#context, send) : send();
  }

  inject(headers: Record<string, string>, runtimeFetch: boolean): void {
    if (!this.#span || headers.traceparent !== undefined || (runtimeFetch && fetchInstrumented())) return;
    safely(() => this.#otel.inject(this.#context, headers));
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
        ...(end.requestId === undefined ? {} : { [`${ATTRIBUTE_PREFIX}request_id`]: end.requestId }),
      });
      if (end.requestId !== undefined) this.#requestId = end.requestId;
      const metrics = this.#instruments;
      if (!metrics) return;
      const template = this.#common['url.template'];
      const perKey = {
        ...(template === undefined ? {} : { 'url.template': template }),
        [`${ATTRIBUTE_PREFIX}budget`]: this.#budget,
      };
      metrics.wait.record(end.queuedMs / 1000, perKey);
      metrics.duration.record(end.durationMs / 1000, {
        ...this.#common,
        ...(end.status === undefined ? {} : { 'http.response.status_code': end.status }),
        ...(end.code === undefined ? {} : { 'error.type': end.code }),
      });
      if (end.status === 429) metrics.rateLimited.add(1, perKey);
    });
  }

  queuing(limiter: RateLimiter, budgets: readonly string[]): void {
    if (this.#instruments) safely(() => watchQueue(limiter, budgets));
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
      const attributes: Attributes = { [`${ATTRIBUTE_PREFIX}rate_limit.wait_ms`]: this.#waitedMs };
      // The HTTP semantic conventions: recommended "if and only if request was retried".
      if (end.resendCount > 0) attributes['http.request.resend_count'] = end.resendCount;
      if (this.#requestId !== undefined) attributes[`${ATTRIBUTE_PREFIX}request_id`] = this.#requestId;
      if (end.status !== undefined) attributes['http.response.status_code'] = end.status;
      if (error !== undefined) {
        const code = errorCode(error);
        attributes['error.type'] = code;
        attributes[`${ATTRIBUTE_PREFIX}may_have_succeeded`] = mayHaveSucceeded(error);
        const portalCode = (error as { portalCode?: unknown }).portalCode;
        if (typeof portalCode === 'number') attributes[`${ATTRIBUTE_PREFIX}portal_code`] = portalCode;
        span.setStatus({ code: STATUS_ERROR, message: code });
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
