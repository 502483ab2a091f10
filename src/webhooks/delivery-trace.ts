// OpenTelemetry for webhook deliveries, through the optional peer `@opentelemetry/api`: one span per delivery a
// handler receives (kind CONSUMER, `webhook {event_type}`), with the event's id, type, `known`, the de-duplication
// outcome and the answer given. Never the secret, the signature, a digest or the body. `onEvent` runs with the span
// active, so the application's own spans (a database write, say) become its children.
import type { Span, Tracer, TracerProvider } from '@opentelemetry/api';
import { ATTRIBUTE_PREFIX, loadOtel, type Otel, otel, perProvider, SCOPE_NAME } from '../internal/otel.js';
import type { WebhookEvent } from './events.js';

const PREFIX = `${ATTRIBUTE_PREFIX}webhook.`;

/** What the delivery path tells its span. Every method is safe to call in any order and never throws. */
export interface DeliveryTrace {
  /** The signature checked out and the envelope parsed. */
  event(event: WebhookEvent): void;
  /** The de-duplication store's answer: `'claimed'`, `'processed'` (a duplicate) or `'processing'`. */
  claim(claim: string): void;
  /** Runs `onEvent` with the delivery's span active. */
  run<T>(onEvent: () => Promise<T> | T): Promise<T>;
  /** The answer given. */
  end(status: number, body: string): void;
}

let tracerOf: (() => Tracer) | undefined;

function lookup(api: Otel): () => Tracer {
  tracerOf ??= perProvider(
    () => {
      const provider = api.trace.getTracerProvider() as TracerProvider & { getDelegate?: () => TracerProvider };
      return provider.getDelegate?.() ?? provider;
    },
    (provider) => (provider as TracerProvider).getTracer(SCOPE_NAME),
  );
  return tracerOf;
}

/** The trace of one delivery, or `undefined` without the peer or a recording provider. */
export async function startDeliveryTrace(): Promise<DeliveryTrace | undefined> {
  const api = otel() ?? (await loadOtel());
  if (!api) return undefined;
  try {
    const parent = api.context.active();
    const span = lookup(api)().startSpan('webhook', { kind: api.SpanKind.CONSUMER }, parent);
    if (!span.isRecording()) return undefined;
    return new SpanTrace(api, span, api.trace.setSpan(parent, span));
  } catch {
    return undefined;
  }
}

function safely(record: () => void): void {
  try {
    record();
  } catch {
    // Telemetry never changes a delivery's answer.
  }
}

class SpanTrace implements DeliveryTrace {
  readonly #api: Otel;
  readonly #span: Span;
  readonly #context: ReturnType<Otel['context']['active']>;
  #ended = false;

  constructor(api: Otel, span: Span, context: ReturnType<Otel['context']['active']>) {
    this.#api = api;
    this.#span = span;
    this.#context = context;
  }

  event(event: WebhookEvent): void {
    safely(() => {
      this.#span.updateName(`webhook ${event.event_type}`);
      this.#span.setAttributes({
        [`${PREFIX}event_id`]: event.event_id,
        [`${PREFIX}event_type`]: event.known ? event.event_type : String(event.received_event_type).slice(0, 60),
        [`${PREFIX}known`]: event.known,
      });
    });
  }

  claim(claim: string): void {
    safely(() => this.#span.setAttribute(`${PREFIX}dedupe`, claim));
  }

  run<T>(onEvent: () => Promise<T> | T): Promise<T> {
    return this.#api.context.with(this.#context, async () => onEvent());
  }

  end(status: number, body: string): void {
    if (this.#ended) return;
    this.#ended = true;
    safely(() => {
      this.#span.setAttribute('http.response.status_code', status);
      if (status >= 300) {
        // The answer's body is the handler's own small JSON; only its error code is kept.
        const code = (JSON.parse(body) as { error?: unknown }).error;
        const type = typeof code === 'string' && code !== '' ? code : 'WEBHOOK_HANDLER_FAILED';
        this.#span.setAttribute('error.type', type);
        if (status >= 500 || status === 401) this.#span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: type });
      }
      this.#span.end();
    });
  }
}
