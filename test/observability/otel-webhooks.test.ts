// Issue 19, item 3: a span per webhook delivery received by the handlers, on real loopback servers, with the real
// OpenTelemetry SDK: the event's id, type, `known`, the de-duplication outcome and the answer; never the secret, the
// signature or the body.
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryDedupeStore, type WebhookHandlerOptions } from '../../src/webhooks/index.js';
import { type InstalledOtel, installOtel } from '../helpers/otel.js';
import { DOCUMENT_EVENT, deliverSigned } from '../webhooks/fixtures.js';
import { handlerStarters } from '../webhooks/servers.js';

const closers: (() => Promise<unknown>)[] = [];
let installed: InstalledOtel;
beforeEach(() => {
  installed = installOtel();
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await installed.uninstall();
});

/** A secret that looks like a word, so that a leak is found by a plain text search. */
const SECRET = 'lighthouse';

const deliver = (url: string, body: unknown, secret = SECRET) => deliverSigned(url, body, secret);

const webhookSpans = (): ReadableSpan[] =>
  installed.exporter.getFinishedSpans().filter((span) => span.name.startsWith('webhook'));

let counter = 0;
const eventOf = (extra: Record<string, unknown> = {}) => ({
  ...DOCUMENT_EVENT,
  event_id: `otel-${++counter}`,
  ...extra,
});

describe.each(handlerStarters(closers))('webhook spans through %s', (_, start) => {
  it('one CONSUMER span per delivery: id, type, known, dedupe outcome and the answer; onEvent runs inside it', async () => {
    const options: WebhookHandlerOptions = {
      secret: SECRET,
      dedupe: createMemoryDedupeStore(),
      onEvent: () => {
        trace.getTracer('partner-app').startSpan('store event').end();
      },
    };
    const url = await start(options);
    const event = eventOf();
    expect((await deliver(url, event)).status).toBe(200);
    expect((await deliver(url, event)).status).toBe(200);
    const [first, second] = webhookSpans();
    expect(first?.name).toBe('webhook document');
    expect(first?.kind).toBe(SpanKind.CONSUMER);
    expect(first?.attributes).toMatchObject({
      'invoicing_service.webhook.event_id': event.event_id,
      'invoicing_service.webhook.event_type': 'document',
      'invoicing_service.webhook.known': true,
      'invoicing_service.webhook.dedupe': 'claimed',
      'http.response.status_code': 200,
    });
    expect(second?.attributes['invoicing_service.webhook.dedupe']).toBe('processed');
    const stored = installed.exporter.getFinishedSpans().filter((span) => span.name === 'store event');
    expect(stored).toHaveLength(1);
    expect(stored[0]?.parentSpanContext?.spanId).toBe(first?.spanContext().spanId);
  });

  it('a bad signature: 401 with error.type and status ERROR; a drifted type is known: false under its received name', async () => {
    const url = await start({ secret: SECRET, onEvent: () => undefined });
    expect((await deliver(url, eventOf(), 'another-secret')).status).toBe(401);
    expect((await deliver(url, eventOf({ event_type: 'payment' }))).status).toBe(200);
    const [refused, drifted] = webhookSpans();
    expect(refused?.name).toBe('webhook');
    expect(refused?.status.code).toBe(SpanStatusCode.ERROR);
    expect(refused?.attributes['http.response.status_code']).toBe(401);
    expect(String(refused?.attributes['error.type'])).toMatch(/^WEBHOOK_/);
    expect(drifted?.name).toBe('webhook unknown');
    expect(drifted?.attributes).toMatchObject({
      'invoicing_service.webhook.event_type': 'payment',
      'invoicing_service.webhook.known': false,
    });
  });

  it('a throwing onEvent: 500, status ERROR; the secret, the signature and the body are in no span', async () => {
    const url = await start({
      secret: SECRET,
      onEvent: () => {
        throw new Error('database down');
      },
      onError: () => undefined,
    });
    const sent = await deliver(url, eventOf({ data: { ...DOCUMENT_EVENT.data, serial_number: 'INV-SECRET-BODY' } }));
    expect(sent.status).toBe(500);
    const [span] = webhookSpans();
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['error.type']).toBe('WEBHOOK_HANDLER_FAILED');
    const text = JSON.stringify(
      installed.exporter.getFinishedSpans().map((s) => [s.name, s.attributes, s.events, s.status]),
    );
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(sent.signature);
    expect(text).not.toContain('INV-SECRET-BODY');
    expect(text).not.toContain('database down');
  });
});
