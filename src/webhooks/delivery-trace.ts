// OpenTelemetry for webhook deliveries, as the application registered it (see ../internal/otel.ts): one span per
// delivery a handler receives (kind CONSUMER, `webhook {event_type}`), with the event's id, type, `known`, the
// de-duplication outcome and the answer given. Never the secret, the signature, a digest or the body. `onEvent` runs
// with the span active, so the application's own spans (a database write, say) become its children.
import {
  ATTRIBUTE_PREFIX,
  type Otel,
  type OtelContext,
  type OtelSpan,
  otelReader,
  SPAN_KIND,
  STATUS_ERROR,
  safely,
} from '../internal/otel.js';
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

const registered = /* @__PURE__ */ otelReader(() => undefined);

/** The trace of one delivery, or `undefined` without a registered, recording tracer provider. */
export function startDeliveryTrace(): DeliveryTrace | undefined {
  const otel = registered();
  if (!otel?.tracer) return undefined;
  try {
    const parent = otel.active();
    const span = otel.tracer.startSpan('webhook', { kind: SPAN_KIND.CONSUMER }, parent);
    if (!span.isRecording()) return undefined;
    return new SpanTrace(otel, span, otel.withSpan(parent, span));
  } catch {
    return undefined;
  }
}

class SpanTrace implements DeliveryTrace {
  readonly #otel: Otel;
  readonly #span: OtelSpan;
  readonly #context: OtelContext;
  #ended = false;

  constructor(otel: Otel, span: OtelSpan, context: OtelContext) {
    this.#otel = otel;
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
    return this.#otel.run(this.#context, async () => onEvent());
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
        if (status >= 500 || status === 401) this.#span.setStatus({ code: STATUS_ERROR, message: type });
      }
      this.#span.end();
    });
  }
}
