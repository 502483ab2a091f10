import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createWebhookHandler,
  type DedupeClaim,
  type WebhookDedupeStore,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';
import { deferred } from '../helpers/deferred.js';
import { DOCUMENT_EVENT, deliveryRequest, INVENTORY_EVENT, SECRET, signed, withId } from './fixtures.js';

function setup(overrides: Partial<WebhookHandlerOptions> = {}) {
  const events: WebhookEvent[] = [];
  const errors: { error: unknown; status: number; eventId?: string | undefined }[] = [];
  const handler = createWebhookHandler({
    secret: SECRET,
    onEvent: (event) => {
      events.push(event);
    },
    onError: (error, info) => errors.push({ error, ...info }),
    ...overrides,
  });
  return { handler, events, errors };
}

afterEach(() => vi.restoreAllMocks());

describe('createWebhookHandler', () => {
  it('answers 200 only after onEvent resolved', async () => {
    const order: string[] = [];
    const { handler } = setup({
      onEvent: async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push('onEvent done');
      },
    });
    const response = await handler(deliveryRequest(DOCUMENT_EVENT));
    order.push('answered');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(order).toEqual(['onEvent done', 'answered']);
  });

  it('passes the typed event to onEvent, unknown event types included', async () => {
    const warnings: string[] = [];
    const { handler, events } = setup({ logger: { warn: (message: string) => warnings.push(message) } });
    await handler(deliveryRequest(INVENTORY_EVENT));
    await handler(deliveryRequest({ event_id: 'f-1', event_type: 'payment', data: { x: 1 } }));
    expect(warnings).toEqual([expect.stringMatching(/webhook event f-1 of type 'payment' does not match the spec/)]);
    expect(events).toEqual([
      { known: true, ...INVENTORY_EVENT },
      {
        known: false,
        event_id: 'f-1',
        event_type: 'unknown',
        received_event_type: 'payment',
        data: { x: 1 },
        issues: [],
      },
    ]);
  });

  it('answers 401 to a wrong signature without calling onEvent or echoing the signature', async () => {
    const { handler, events, errors } = setup();
    const wrong = 'ab'.repeat(32);
    const response = await handler(deliveryRequest(DOCUMENT_EVENT, { signature: wrong }));
    const text = await response.text();
    expect(response.status).toBe(401);
    expect(JSON.parse(text)).toMatchObject({ ok: false, error: 'WEBHOOK_VERIFICATION_FAILED' });
    expect(text).not.toContain(wrong);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(signed(DOCUMENT_EVENT).signature);
    expect(events).toEqual([]);
    expect(errors[0]?.status).toBe(401);
  });

  it('answers 401 to a delivery without X-Signature', async () => {
    const { handler } = setup();
    const response = await handler(deliveryRequest(DOCUMENT_EVENT, { signature: null }));
    expect(response.status).toBe(401);
  });

  it('answers 400 to a well-signed envelope without an event_type, naming the field', async () => {
    const { handler, events } = setup();
    const response = await handler(deliveryRequest({ event_id: 'x', data: {} }));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; message: string };
    expect(body.error).toBe('WEBHOOK_PAYLOAD_INVALID');
    expect(body.message).toContain('event_type');
    expect(events).toEqual([]);
  });

  it('with strictPayload, answers 400 to a known event whose data breaks the spec, naming the field', async () => {
    const { handler, events } = setup({ strictPayload: true });
    const response = await handler(deliveryRequest({ event_id: 'x', event_type: 'document', data: {} }));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; message: string };
    expect(body.error).toBe('WEBHOOK_PAYLOAD_INVALID');
    expect(body.message).toContain('data.hash_id');
    expect(events).toEqual([]);
  });

  it('answers 500 when onEvent throws, without its message, and lets the redelivery succeed', async () => {
    let fail = true;
    const { handler, errors } = setup({
      onEvent: () => {
        if (fail) throw new Error('database down at 10.0.0.5');
      },
    });
    const first = await handler(deliveryRequest(DOCUMENT_EVENT));
    const text = await first.text();
    expect(first.status).toBe(500);
    expect(text).not.toContain('database');
    expect(errors[0]).toMatchObject({ status: 500, eventId: DOCUMENT_EVENT.event_id });
    fail = false;
    const second = await handler(deliveryRequest(DOCUMENT_EVENT));
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ ok: true });
  });

  it('answers 200 to a duplicate without calling onEvent again', async () => {
    const { handler, events } = setup();
    const first = await handler(deliveryRequest(DOCUMENT_EVENT));
    const again = await handler(deliveryRequest(DOCUMENT_EVENT));
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ ok: true, duplicate: true });
    expect(events).toHaveLength(1);
  });

  it('answers 409 to a second delivery of an event still being processed, then 200 duplicate once done', async () => {
    const gate = deferred();
    const entered = deferred();
    const { handler, events } = setup({
      onEvent: async (event) => {
        entered.resolve();
        await gate.promise;
        events.push(event);
      },
    });
    const first = handler(deliveryRequest(DOCUMENT_EVENT));
    // The second delivery arrives while the first is inside onEvent.
    await entered.promise;
    const concurrent = await handler(deliveryRequest(DOCUMENT_EVENT));
    expect(concurrent.status).toBe(409);
    expect(concurrent.headers.get('retry-after')).toBe('10');
    gate.resolve();
    expect((await first).status).toBe(200);
    expect((await handler(deliveryRequest(DOCUMENT_EVENT))).status).toBe(200);
    expect(events).toHaveLength(1);
  });

  it('processes the redelivery when the concurrent first delivery failed', async () => {
    const gate = deferred();
    const entered = deferred();
    let calls = 0;
    const { handler } = setup({
      onEvent: async () => {
        calls++;
        entered.resolve();
        if (calls === 1) await gate.promise;
      },
    });
    const first = handler(deliveryRequest(DOCUMENT_EVENT));
    await entered.promise;
    expect((await handler(deliveryRequest(DOCUMENT_EVENT))).status).toBe(409);
    gate.reject(new Error('boom'));
    expect((await first).status).toBe(500);
    expect((await handler(deliveryRequest(DOCUMENT_EVENT))).status).toBe(200);
    expect(calls).toBe(2);
  });

  it('calls onEvent for every delivery when de-duplication is off', async () => {
    const { handler, events } = setup({ dedupe: false });
    await handler(deliveryRequest(DOCUMENT_EVENT));
    await handler(deliveryRequest(DOCUMENT_EVENT));
    expect(events).toHaveLength(2);
  });

  it('uses a custom store with the lease and TTL it was given', async () => {
    const calls: string[] = [];
    const records = new Map<string, DedupeClaim>();
    const store: WebhookDedupeStore = {
      async claim(id, leaseMs) {
        calls.push(`claim ${id} ${leaseMs}`);
        const found = records.get(id);
        if (found) return found;
        records.set(id, 'processing');
        return 'claimed';
      },
      async commit(id, ttlMs) {
        calls.push(`commit ${id} ${ttlMs}`);
        records.set(id, 'processed');
      },
      async release(id) {
        calls.push(`release ${id}`);
        records.delete(id);
      },
    };
    const { handler } = setup({ dedupe: store, processingLeaseMs: 30_000, dedupeTtlMs: 86_400_000 });
    await handler(deliveryRequest(withId(DOCUMENT_EVENT, 'e-1')));
    await handler(deliveryRequest(withId(DOCUMENT_EVENT, 'e-1')));
    expect(calls).toEqual(['claim e-1 30000', 'commit e-1 86400000', 'claim e-1 30000']);
  });

  it('answers 500 when the store cannot claim, so the service redelivers', async () => {
    const store: WebhookDedupeStore = {
      claim: () => Promise.reject(new Error('redis unreachable')),
      commit: async () => {},
      release: async () => {},
    };
    const { handler, events } = setup({ dedupe: store });
    expect((await handler(deliveryRequest(DOCUMENT_EVENT))).status).toBe(500);
    expect(events).toEqual([]);
  });

  it('still answers 200 when recording a processed event fails, and reports it', async () => {
    const store: WebhookDedupeStore = {
      claim: async () => 'claimed',
      commit: () => Promise.reject(new Error('redis unreachable')),
      release: async () => {},
    };
    const { handler, errors } = setup({ dedupe: store });
    expect((await handler(deliveryRequest(DOCUMENT_EVENT))).status).toBe(200);
    expect(errors).toMatchObject([{ status: 200, eventId: DOCUMENT_EVENT.event_id }]);
  });

  it('answers 405 with Allow: POST to other methods', async () => {
    const { handler } = setup();
    const response = await handler(deliveryRequest(DOCUMENT_EVENT, { method: 'GET' }));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('answers 413 to a body announced larger than maxBodyBytes', async () => {
    const { handler, events } = setup({ maxBodyBytes: 64 });
    const response = await handler(deliveryRequest(DOCUMENT_EVENT));
    expect(response.status).toBe(413);
    expect(events).toEqual([]);
  });

  it('answers 413 to a streamed body that grows past maxBodyBytes, without reading it all', async () => {
    const { handler } = setup({ maxBodyBytes: 1000 });
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(400).fill(0x20));
      },
    });
    const request = new Request('https://partner.example/webhooks', {
      method: 'POST',
      body: stream,
      headers: { 'x-signature': 'a'.repeat(64) },
      duplex: 'half',
    } as RequestInit);
    expect((await handler(request)).status).toBe(413);
    expect(pulled).toBeLessThan(10);
  });

  it('answers 500 and explains the raw body when the request body was already read', async () => {
    const { handler, errors } = setup();
    const request = deliveryRequest(DOCUMENT_EVENT);
    await request.json();
    expect((await handler(request)).status).toBe(500);
    expect(String(errors[0]?.error)).toContain('await request.text()');
  });

  it('verifies on the Web Crypto path when asked to', async () => {
    const { handler, events } = setup({ crypto: 'webcrypto' });
    expect((await handler(deliveryRequest(DOCUMENT_EVENT))).status).toBe(200);
    expect((await handler(deliveryRequest(INVENTORY_EVENT, { signature: 'f'.repeat(64) }))).status).toBe(401);
    expect(events).toHaveLength(1);
  });

  it('logs 5xx causes with console.warn by default, and never 4xx ones', async () => {
    const log = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const handler = createWebhookHandler({
      secret: SECRET,
      onEvent: () => {
        throw new Error('handler bug');
      },
    });
    await handler(deliveryRequest(DOCUMENT_EVENT, { signature: 'a'.repeat(64) }));
    expect(log).not.toHaveBeenCalled();
    await handler(deliveryRequest(DOCUMENT_EVENT));
    expect(log).toHaveBeenCalledTimes(1);
    expect(String(log.mock.calls[0]?.[0])).toContain('handler bug');
    expect(String(log.mock.calls[0]?.[0])).not.toContain(SECRET);
  });

  it('keeps its answer when onError itself throws, and reports that once through the logger', async () => {
    const warnings: string[] = [];
    const { handler } = setup({
      onError: () => {
        throw new Error('onError broken');
      },
      logger: { warn: (message: string) => warnings.push(message) },
    });
    expect((await handler(deliveryRequest(DOCUMENT_EVENT, { signature: 'a'.repeat(64) }))).status).toBe(401);
    expect(warnings.join('\n')).toMatch(/onError broken/);
  });

  it.each([
    [{ secret: '' }, /secret must be/],
    [{ secret: undefined }, /secret must be/],
    [{ onEvent: 'nope' }, /onEvent must be a function/],
    [{ dedupe: {} }, /dedupe must be a store/],
    [{ maxBodyBytes: 0 }, /maxBodyBytes must be a positive integer/],
    [{ dedupeTtlMs: -5 }, /dedupeTtlMs must be/],
    [{ crypto: 'fast' }, /crypto must be/],
  ])('refuses the bad option %j when the handler is made', (bad, message) => {
    const options = { secret: SECRET, onEvent: () => {}, ...bad } as unknown as WebhookHandlerOptions;
    expect(() => createWebhookHandler(options)).toThrow(message);
  });

  it('does not show the secret in the message of an option error', () => {
    expect(() => createWebhookHandler({ secret: SECRET, onEvent: 1 } as never)).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(SECRET) }),
    );
  });
});
