import { describe, expect, it, vi } from 'vitest';
import {
  createMemoryDedupeStore,
  createWebhookHandler,
  type DedupeClaim,
  type WebhookDedupeStore,
} from '../../src/webhooks/index.js';
import { manualClock as clock, deferred } from '../helpers/deferred.js';
import { DOCUMENT_EVENT, deliveryRequest, SECRET, withId } from './fixtures.js';

/** An `onEvent` whose first `blocking` calls wait until the test settles them; later calls resolve at once. */
function controlledOnEvent(blocking: number) {
  const calls: ReturnType<typeof deferred>[] = [];
  let notify: (() => void) | undefined;
  const onEvent = () => {
    const call = deferred();
    calls.push(call);
    notify?.();
    return calls.length <= blocking ? call.promise : undefined;
  };
  /** The n-th call (1-based), once it has started. */
  async function call(n: number) {
    while (calls.length < n) await new Promise<void>((resolve) => (notify = resolve));
    const found = calls[n - 1];
    if (found === undefined) throw new Error(`call ${n} did not start`);
    return found;
  }
  return { onEvent, calls, call };
}

/** A handler over a memory store with a fake clock and a 1-second lease. */
function setup(blocking: number) {
  const time = clock();
  const control = controlledOnEvent(blocking);
  const handler = createWebhookHandler({
    secret: SECRET,
    onEvent: control.onEvent,
    dedupe: createMemoryDedupeStore({ now: time.now }),
    processingLeaseMs: 1000,
    onError: () => {},
  });
  return { handler, time, ...control };
}

describe('claims owned by the delivery that made them', () => {
  it("does not let a delivery whose lease ran out release a newer delivery's claim", async () => {
    const { handler, time, calls, call } = setup(2);
    const a = handler(deliveryRequest(DOCUMENT_EVENT));
    const callA = await call(1);
    time.advance(1000); // A's lease runs out while A still runs.
    const b = handler(deliveryRequest(DOCUMENT_EVENT));
    const callB = await call(2);
    callA.reject(new Error('A failed'));
    expect((await a).status).toBe(500);
    // B still holds the claim: a third delivery must wait instead of running the event a second time alongside B.
    expect((await handler(deliveryRequest(DOCUMENT_EVENT))).status).toBe(409);
    callB.resolve();
    expect((await b).status).toBe(200);
    const after = await handler(deliveryRequest(DOCUMENT_EVENT));
    expect(await after.json()).toEqual({ ok: true, duplicate: true });
    expect(calls).toHaveLength(2);
  });

  it("does not let a delivery whose lease ran out mark a newer delivery's claim processed", async () => {
    const { handler, time, calls, call } = setup(2);
    const a = handler(deliveryRequest(DOCUMENT_EVENT));
    const callA = await call(1);
    time.advance(1000);
    const b = handler(deliveryRequest(DOCUMENT_EVENT));
    const callB = await call(2);
    callA.resolve();
    expect((await a).status).toBe(200);
    expect((await handler(deliveryRequest(DOCUMENT_EVENT))).status).toBe(409);
    // B owns the claim; when B fails, the redelivery is processed rather than dropped as a duplicate.
    callB.reject(new Error('B failed'));
    expect((await b).status).toBe(500);
    const redelivery = await handler(deliveryRequest(DOCUMENT_EVENT));
    expect(await redelivery.json()).toEqual({ ok: true });
    expect(calls).toHaveLength(3);
  });

  it('passes one new token per delivery to claim, commit and release', async () => {
    const seen: string[] = [];
    const records = new Map<string, DedupeClaim>();
    const store: WebhookDedupeStore = {
      async claim(id, _leaseMs, token) {
        seen.push(`claim ${id} ${token}`);
        const found = records.get(id);
        if (found) return found;
        records.set(id, 'processing');
        return 'claimed';
      },
      async commit(id, _ttlMs, token) {
        seen.push(`commit ${id} ${token}`);
        records.set(id, 'processed');
      },
      async release(id, token) {
        seen.push(`release ${id} ${token}`);
        records.delete(id);
      },
    };
    let fail = true;
    const handler = createWebhookHandler({
      secret: SECRET,
      dedupe: store,
      onError: () => {},
      onEvent: () => {
        if (fail) throw new Error('first attempt fails');
      },
    });
    await handler(deliveryRequest(withId(DOCUMENT_EVENT, 'e-1')));
    fail = false;
    await handler(deliveryRequest(withId(DOCUMENT_EVENT, 'e-1')));
    const tokens = seen.map((line) => line.split(' ')[2]);
    expect(seen.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
      'claim e-1',
      'release e-1',
      'claim e-1',
      'commit e-1',
    ]);
    expect(tokens[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(tokens[1]).toBe(tokens[0]);
    expect(tokens[3]).toBe(tokens[2]);
    expect(tokens[2]).not.toBe(tokens[0]);
  });

  it('accepts a store whose methods ignore the token, and still drops a redelivery as a duplicate', async () => {
    const records = new Map<string, DedupeClaim>();
    const tokenless: WebhookDedupeStore = {
      async claim(id) {
        const found = records.get(id);
        if (found) return found;
        records.set(id, 'processing');
        return 'claimed';
      },
      async commit(id) {
        records.set(id, 'processed');
      },
      async release(id) {
        records.delete(id);
      },
    };
    let calls = 0;
    const handler = createWebhookHandler({ secret: SECRET, dedupe: tokenless, onEvent: () => void calls++ });
    expect(await (await handler(deliveryRequest(DOCUMENT_EVENT))).json()).toEqual({ ok: true });
    expect(await (await handler(deliveryRequest(DOCUMENT_EVENT))).json()).toEqual({ ok: true, duplicate: true });
    expect(calls).toBe(1);
  });
});

describe('a claim that failed', () => {
  it("is released with its own token only, leaving another delivery's claim in place", async () => {
    const inner = createMemoryDedupeStore();
    const released: string[] = [];
    const claimTokens: string[] = [];
    let failNext = false;
    // A store whose claim is taken but answered with an error (a call abandoned at its deadline that ran later).
    const store: WebhookDedupeStore = {
      async claim(id, leaseMs, token): Promise<DedupeClaim> {
        claimTokens.push(token);
        const found = await inner.claim(id, leaseMs, token);
        if (failNext) {
          failNext = false;
          throw new Error('the store did not answer in time');
        }
        return found;
      },
      commit: (id, ttlMs, token) => inner.commit(id, ttlMs, token),
      async release(id, token) {
        released.push(token);
        await inner.release(id, token);
      },
    };
    const gate = deferred();
    let runs = 0;
    const handler = createWebhookHandler({
      secret: SECRET,
      dedupe: store,
      onEvent: async () => {
        runs += 1;
        await gate.promise;
      },
      onError: () => {},
    });
    const event = withId(DOCUMENT_EVENT, 'failed-claim-1');
    failNext = true;
    expect((await handler(deliveryRequest(event))).status).toBe(500);
    // The release is reported after the answer: wait for it (the timeout only guards against a hang).
    await vi.waitFor(() => expect(released).toEqual([claimTokens[0]]), { timeout: 5000, interval: 1 });
    // The failed claim was undone: the redelivery runs the event.
    const running = handler(deliveryRequest(event));
    await vi.waitFor(() => expect(runs).toBe(1), { timeout: 5000, interval: 1 });
    // A delivery whose claim fails while another holds the event does not free the other's claim.
    failNext = true;
    expect((await handler(deliveryRequest(event))).status).toBe(500);
    await vi.waitFor(() => expect(released).toEqual([claimTokens[0], claimTokens[2]]), { timeout: 5000, interval: 1 });
    expect((await handler(deliveryRequest(event))).status).toBe(409);
    gate.resolve();
    expect((await running).status).toBe(200);
    expect(runs).toBe(1);
  });
});
