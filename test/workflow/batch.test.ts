import {
  ConnectionError,
  createProcessRateLimiter,
  InvalidHashIdError,
  type RateLimiter,
  ServiceClient,
  ValidationError,
} from 'invoicing-service-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEwayBills } from '../../src/client/batch.js';
import type { EwayBillBatchProgress, EwayBillBatchResult } from '../../src/client/batch-types.js';
import { freshKey, validModel } from '../helpers/model.js';
import { type Send, stampingFetch } from '../helpers/send-times.js';
import { expectSpacedAt } from '../helpers/spacing.js';
import { type BillServer, startBillServer } from './bill-server.js';

let server: BillServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const docs = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}_${i + 1}`);

async function setup(documents: string[], keyCount = 1, limiter?: () => RateLimiter) {
  const keys = Array.from({ length: keyCount }, () => freshKey('batch'));
  server = await startBillServer({ keys, documents });
  const baseUrl = server.baseUrl;
  // When the SDK handed each request to fetch (Date.now()), per key.
  const sends = keys.map(() => [] as Send[]);
  const clients = keys.map(
    (apiKey, k) =>
      new ServiceClient({
        apiKey,
        baseUrl,
        preflight: 'off',
        rateLimiter: (limiter ?? (() => createProcessRateLimiter({ interval: 10, margin: 0 })))(),
        fetch: stampingFetch(sends[k] ?? []),
      }),
  );
  return { keys, clients, server, sends };
}

describe('createEwayBills', () => {
  it('settles every item in input order with a value or a typed error; one failure never rejects the batch', async () => {
    const { clients, server } = await setup(['a_1', 'a_2', 'b_1'], 2);
    const [acme, globex] = clients as [ServiceClient, ServiceClient];
    const bad = { ...validModel(), supply_type: 'Sideways' } as never;
    const results = await createEwayBills({ acme, globex }, [
      { client: 'acme', docHashId: 'a_1', model: validModel() },
      { client: 'globex', docHashId: 'b_1', model: validModel() },
      { client: 'acme', docHashId: 'a_2', model: bad },
      { client: 'globex', docHashId: 'b_missing', model: validModel() },
      { client: 'acme', docHashId: 'a_1', model: validModel() },
    ]);
    expect(results.map((r) => [r.status, r.docHashId, r.client])).toEqual([
      ['fulfilled', 'a_1', 'acme'],
      ['fulfilled', 'b_1', 'globex'],
      ['rejected', 'a_2', 'acme'],
      ['rejected', 'b_missing', 'globex'],
      ['rejected', 'a_1', 'acme'],
    ]);
    const error = (i: number) => (results[i] as Extract<EwayBillBatchResult, { status: 'rejected' }>).error;
    expect(error(2)).toBeInstanceOf(ValidationError);
    expect(error(3)).toBeInstanceOf(InvalidHashIdError);
    expect(error(4)).toBeInstanceOf(ValidationError);
    expect(error(4).message).toMatch(/items\.4\.docHashId: repeats items\[0\] for the same API key; it was not sent/);
    expect(results[0]).toMatchObject({ value: { outcome: 'generated', message: 'E-way bill generated for a_1' } });
    // The invalid model and the repeat were never sent; each document got at most one bill.
    expect(server.posts.map((p) => p.docHashId).sort()).toEqual(['a_1', 'b_1', 'b_missing']);
    expect([...server.generated.values()]).toEqual([1, 1]);
  });

  it('runs the keys in parallel, each spaced by its own limit', async () => {
    const { clients, keys, server, sends } = await setup([...docs('a', 3), ...docs('b', 3)], 2, () =>
      createProcessRateLimiter({ interval: 500, margin: 0 }),
    );
    const [a, b] = clients as [ServiceClient, ServiceClient];
    const items = [...docs('a', 3).map((d) => ({ client: 'a', docHashId: d, model: validModel() }))];
    items.push(...docs('b', 3).map((d) => ({ client: 'b', docHashId: d, model: validModel() })));
    const results = await createEwayBills(
      new Map([
        ['a', a],
        ['b', b],
      ]),
      items,
    );
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
    const order = server.posts.map((p) => p.docHashId);
    // b_1 does not wait behind the queue of key a: it goes out before a_2.
    expect(order.indexOf('b_1')).toBeLessThan(order.indexOf('a_2'));
    for (const [k, apiKey] of keys.entries()) {
      const arrivals = server.posts.filter((p) => p.key === apiKey).map((p) => p.at);
      expect(arrivals).toHaveLength(3);
      // Each key's sends are 500 ms apart, none arriving before it was sent. Unthrottled, they would be a few ms apart.
      expectSpacedAt(
        (sends[k] ?? []).map((send) => send.at),
        arrivals,
        500,
      );
    }
  });

  it('reports progress from 0 to total, with an ETA of the busiest key at one second per call', async () => {
    const { clients, server } = await setup([...docs('a', 3), 'b_1', 'b_2'], 2);
    const [a, b] = clients as [ServiceClient, ServiceClient];
    const seen: EwayBillBatchProgress[] = [];
    const indexes: number[] = [];
    const items = [
      ...docs('a', 3).map((d) => ({ client: 'a', docHashId: d, model: validModel() })),
      { client: 'b', docHashId: 'b_1', model: validModel() },
      { client: 'b', docHashId: 'b_nope', model: validModel() },
    ];
    await createEwayBills({ a, b }, items, {
      onProgress: (p) => seen.push(p),
      onResult: (_r, index) => indexes.push(index),
    });
    expect(seen[0]).toEqual({ done: 0, total: 5, failed: 0, etaMs: 3000 });
    expect(seen.map((p) => p.done)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(seen.at(-1)).toEqual({ done: 5, total: 5, failed: 1, etaMs: 0 });
    expect(seen.every((p) => p.etaMs >= 0)).toBe(true);
    expect(indexes.sort()).toEqual([0, 1, 2, 3, 4]);
    expect(server.posts).toHaveLength(5);
  });

  it("counts an array's items beyond readAhead in the first ETA, per key", async () => {
    const { clients, server } = await setup([...docs('a', 30), ...docs('b', 5)], 2);
    const [a, b] = clients as [ServiceClient, ServiceClient];
    const items = [
      ...docs('a', 30).map((d) => ({ client: 'a', docHashId: d, model: validModel() })),
      ...docs('b', 5).map((d) => ({ client: 'b', docHashId: d, model: validModel() })),
    ];
    const controller = new AbortController();
    const seen: EwayBillBatchProgress[] = [];
    // Only 10 items read ahead: the estimate still knows the 30 of key a (one second each, none measured yet).
    await createEwayBills({ a, b }, items, {
      readAhead: 10,
      signal: controller.signal,
      onProgress: (p) => {
        seen.push(p);
        controller.abort();
      },
    });
    expect(seen[0]).toEqual({ done: 0, total: 35, failed: 0, etaMs: 30_000 });
    expect(seen.at(-1)).toMatchObject({ done: 35, failed: 35, etaMs: 0 });
    expect(server.posts).toHaveLength(0);
  });

  it('goes on when onProgress or onResult throws or rejects, reporting each failure to the logger', async () => {
    const { clients } = await setup(docs('a', 2));
    const logger = { warn: vi.fn() };
    const results = await createEwayBills(
      clients[0] as ServiceClient,
      docs('a', 2).map((docHashId) => ({ docHashId, model: validModel() })),
      {
        logger,
        onProgress: () => {
          throw new Error('progress bar broke');
        },
        onResult: async () => {
          throw new Error('writer broke');
        },
      },
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    // A rejected onResult is reported when its promise settles: wait for the reports (the timeout guards a hang).
    const messages = () => logger.warn.mock.calls.map(([message]) => String(message));
    await vi.waitFor(() => expect(messages().length).toBeGreaterThanOrEqual(5), { timeout: 10_000, interval: 5 });
    expect(messages().filter((m) => m.includes('onProgress failed'))).toHaveLength(3);
    expect(messages().filter((m) => m.includes('onResult failed') && m.includes('writer broke'))).toHaveLength(2);
  });

  it('aborting settles the unfinished items with AbortError at once and sends nothing more', async () => {
    const { clients, server } = await setup(docs('a', 5), 1, () =>
      createProcessRateLimiter({ interval: 300, margin: 0 }),
    );
    server.script('a_2', 'generate-then-hang');
    const controller = new AbortController();
    const pending = createEwayBills(
      clients[0] as ServiceClient,
      docs('a', 5).map((docHashId) => ({ docHashId, model: validModel() })),
      { signal: controller.signal },
    );
    await server.waitForPosts(2);
    controller.abort();
    const results = await pending;
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected', 'rejected']);
    expect(results.slice(1).map((r) => r.status === 'rejected' && r.error.name)).toEqual([
      'AbortedAfterSendError',
      'AbortError',
      'AbortError',
      'AbortError',
    ]);
    // a_2 was in flight (and was generated): it may have succeeded; the others were never handed to the client.
    expect(results.map((r) => r.status === 'rejected' && r.mayHaveSucceeded)).toEqual([
      false,
      true,
      false,
      false,
      false,
    ]);
    // Nothing more is sent: a call made now, on the same key and limiter, goes after anything still queued for it, so
    // once it has arrived, whatever the aborted batch would have sent would be there too.
    await (clients[0] as ServiceClient).createEwayBill('a_5', validModel());
    expect(server.posts.map((p) => p.docHashId)).toEqual(['a_1', 'a_2', 'a_5']);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { clients, server } = await setup(docs('a', 2));
    const results = await createEwayBills(
      clients[0] as ServiceClient,
      docs('a', 2).map((docHashId) => ({ docHashId, model: validModel() })),
      { signal: AbortSignal.abort() },
    );
    expect(results.map((r) => r.status === 'rejected' && r.error.name)).toEqual(['AbortError', 'AbortError']);
    expect(server.posts).toHaveLength(0);
  });

  it('recovers a lost answer with one resend by default, and reports it with recover: false', async () => {
    const { clients, server } = await setup(docs('a', 2));
    const client = clients[0] as ServiceClient;
    server.script('a_1', 'generate-then-drop');
    server.script('a_2', 'generate-then-drop');
    // recover is on by default; the resend's wait (5 s by default) is shortened, it is not what this test is about.
    const [recovered] = await createEwayBills(client, [{ docHashId: 'a_1', model: validModel() }], {
      resendDelayMs: 20,
    });
    expect(recovered).toMatchObject({ status: 'fulfilled', value: { outcome: 'already-generated', recovered: true } });
    expect(server.postsOf('a_1')).toBe(2);
    const [reported] = await createEwayBills(client, [{ docHashId: 'a_2', model: validModel() }], { recover: false });
    expect(reported).toMatchObject({ status: 'rejected', mayHaveSucceeded: true });
    expect(reported?.status === 'rejected' && reported.error).toBeInstanceOf(ConnectionError);
    expect(server.postsOf('a_2')).toBe(1);
  });

  it('takes a 604 as done for an item that may already exist, with or without recovery, in one request', async () => {
    const { clients, server } = await setup(docs('a', 2));
    const client = clients[0] as ServiceClient;
    await client.createEwayBill('a_1', validModel());
    await client.createEwayBill('a_2', validModel());
    for (const [docHashId, recover] of [
      ['a_1', true],
      ['a_2', false],
    ] as const) {
      const [result] = await createEwayBills(client, [{ docHashId, model: validModel(), mayAlreadyExist: true }], {
        recover,
      });
      expect(result).toMatchObject({ status: 'fulfilled', value: { outcome: 'already-generated' } });
      expect(server.postsOf(docHashId)).toBe(2);
    }
    const [plain] = await createEwayBills(client, [{ docHashId: 'a_1', model: validModel() }]);
    expect(plain).toMatchObject({ status: 'rejected', mayHaveSucceeded: false });
  });

  it.each([
    [{ x: 'unknown' }, /items\[0\]\.client 'unknown' is not one of 'a', 'b'/],
    [{}, /items\[0\]\.client is missing; with several clients each item names one of 'a', 'b'/],
  ])('refuses an item that names no known client (%j) before sending anything', async (pick, message) => {
    const { clients, server } = await setup(['a_1']);
    const a = clients[0] as ServiceClient;
    const item = { docHashId: 'a_1', model: validModel(), client: (pick as { x?: string }).x };
    await expect(createEwayBills({ a, b: a }, [item])).rejects.toThrow(message);
    expect(server.posts).toHaveLength(0);
  });

  it('refuses malformed arguments with a TypeError naming them, sending nothing', async () => {
    const { clients, server } = await setup(['a_1']);
    const a = clients[0] as ServiceClient;
    const model = validModel();
    await expect(createEwayBills(a, [{ docHashId: 'a_1', model, client: 'a' }])).rejects.toThrow(
      /items\[0\]\.client is 'a', but createEwayBills was given one client/,
    );
    await expect(createEwayBills(a, [{ docHashId: 'a_1', model }, null as never])).rejects.toThrow(
      /items\[1\] is not an object/,
    );
    await expect(createEwayBills(a, [{ docHashId: 7 as never, model }])).rejects.toThrow(
      /items\[0\]\.docHashId must be a string; got number/,
    );
    await expect(createEwayBills({}, [])).rejects.toThrow(/non-empty record or Map/);
    await expect(createEwayBills({ a: {} as never }, [])).rejects.toThrow(/clients\['a'\] is not a ServiceClient/);
    await expect(createEwayBills(a, 5 as never)).rejects.toThrow(/items must be an array/);
    await expect(createEwayBills(a, [], { onProgress: 1 as never })).rejects.toThrow(/onProgress must be a function/);
    await expect(createEwayBills(a, [], { concurrencyPerClient: 0 })).rejects.toThrow(/concurrencyPerClient/);
    await expect(createEwayBills(a, [], { timeout: -1 })).rejects.toThrow(/options.timeout/);
    expect(server.posts).toHaveLength(0);
  });

  it('resolves an empty batch with an empty array after one progress report', async () => {
    const { clients } = await setup([]);
    const onProgress = vi.fn();
    expect(await createEwayBills(clients[0] as ServiceClient, [], { onProgress })).toEqual([]);
    expect(onProgress).toHaveBeenCalledExactlyOnceWith({ done: 0, total: 0, failed: 0, etaMs: 0 });
  });
});
