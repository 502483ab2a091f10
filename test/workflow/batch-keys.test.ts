// Issue 17, findings 2 and 10: a refused key stops its own items at once (other keys go on); items are read lazily
// with a bounded read-ahead; duplicates are found per API key, not per client name. Against the loopback bill server.
import {
  createEwayBills,
  createProcessRateLimiter,
  ServiceClient,
  UnauthorizedError,
  ValidationError,
} from 'invoicing-service-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { freshKey, validModel } from '../helpers/model.js';
import { type BillServer, startBillServer } from './bill-server.js';

let server: BillServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const noWait = { acquire: async () => undefined };
const model = validModel();

describe('a refused key', () => {
  it('after UNAUTHORIZED its remaining items settle at once, unsent; the other key goes on', async () => {
    const good = freshKey('good');
    const revoked = freshKey('revoked');
    const docs = Array.from({ length: 12 }, (_, i) => `d_${i}`);
    server = await startBillServer({ keys: [good], documents: docs });
    const limiter = () => createProcessRateLimiter({ interval: 50, margin: 0 });
    const clients = {
      good: new ServiceClient({ apiKey: good, baseUrl: server.baseUrl, preflight: 'off', rateLimiter: limiter() }),
      revoked: new ServiceClient({
        apiKey: revoked,
        baseUrl: server.baseUrl,
        preflight: 'off',
        rateLimiter: limiter(),
      }),
    };
    const items = docs.flatMap((docHashId, i) => [
      { client: 'revoked', docHashId: `r_${i}`, model },
      { client: 'good', docHashId, model },
    ]);
    const results = await createEwayBills(clients, items);
    const revokedResults = results.filter((r) => r.client === 'revoked');
    expect(revokedResults).toHaveLength(12);
    for (const r of revokedResults) {
      expect(r.status).toBe('rejected');
      expect(r.status === 'rejected' && r.error).toBeInstanceOf(UnauthorizedError);
      expect(r.status === 'rejected' && r.mayHaveSucceeded).toBe(false);
    }
    expect(server.posts.filter((p) => p.key === revoked)).toHaveLength(1);
    expect(results.filter((r) => r.client === 'good' && r.status === 'fulfilled')).toHaveLength(12);
  });
});

describe('duplicates per key, not per name', () => {
  it('one client under two names, and two clients of one key, never send a document twice', async () => {
    const key = freshKey('dup');
    server = await startBillServer({ keys: [key], documents: ['doc_1', 'doc_2'] });
    const one = new ServiceClient({ apiKey: key, baseUrl: server.baseUrl, preflight: 'off', rateLimiter: noWait });
    const twin = new ServiceClient({ apiKey: key, baseUrl: server.baseUrl, preflight: 'off', rateLimiter: noWait });
    const results = await createEwayBills({ a: one, b: one, c: twin }, [
      { client: 'a', docHashId: 'doc_1', model },
      { client: 'b', docHashId: 'doc_1', model },
      { client: 'c', docHashId: 'doc_1', model },
      { client: 'c', docHashId: 'doc_2', model },
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(results[1]?.status === 'rejected' && results[1].error).toBeInstanceOf(ValidationError);
    expect(server.postsOf('doc_1')).toBe(1);
  });

  it('a key with and without a rateLimitKey, and two keys of one rateLimitKey, share one lane: no repeat is sent', async () => {
    const key = freshKey('dup-named');
    const rotated = freshKey('dup-rotated');
    server = await startBillServer({ keys: [key, rotated], documents: ['doc_1', 'doc_2'] });
    const options = { baseUrl: server.baseUrl, preflight: 'off' as const, rateLimiter: noWait };
    const named = new ServiceClient({ ...options, apiKey: key, rateLimitKey: 'company-42' });
    const plain = new ServiceClient({ ...options, apiKey: key });
    const sameCompany = new ServiceClient({ ...options, apiKey: rotated, rateLimitKey: 'company-42' });
    const results = await createEwayBills({ named, plain, sameCompany }, [
      { client: 'named', docHashId: 'doc_1', model },
      // The same key as `named` (issue 28: one key is one budget whatever name a client gives it).
      { client: 'plain', docHashId: 'doc_1', model },
      { client: 'sameCompany', docHashId: 'doc_2', model },
      // The same rateLimitKey as `sameCompany`.
      { client: 'named', docHashId: 'doc_2', model },
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect(results[1]?.status === 'rejected' && results[1].error).toBeInstanceOf(ValidationError);
    expect(server.postsOf('doc_1')).toBe(1);
    expect(server.postsOf('doc_2')).toBe(1);
  });
  // Issue 29 (review 28, finding 10): A and C share the rateLimitKey 'co', A and D the key K1, B and C the key K2, so all
  // four are one group. A client used to join "the first budget that already had a lane", which split the group in
  // two whatever the order: the document went out twice (via K1 and via K2). The lanes are now the connected groups
  // of every client's budgets, made before anything is read.
  it('clients joined through keys and a rateLimitKey are one lane, in every order of the items', async () => {
    const k1 = freshKey('lane-k1');
    const k2 = freshKey('lane-k2');
    const orders = [
      ['A', 'B', 'C', 'D'],
      ['B', 'A', 'C', 'D'],
      ['B', 'D', 'C', 'A'],
      ['D', 'B', 'A', 'C'],
      ['C', 'D', 'B', 'A'],
      ['B', 'D', 'A', 'C'],
    ];
    const docs = orders.map((order) => `doc_${order.join('')}`);
    server = await startBillServer({ keys: [k1, k2], documents: docs });
    const options = { baseUrl: server.baseUrl, preflight: 'off' as const, rateLimiter: noWait };
    const clients = {
      A: new ServiceClient({ ...options, apiKey: k1, rateLimitKey: 'co-lanes' }),
      B: new ServiceClient({ ...options, apiKey: k2 }),
      C: new ServiceClient({ ...options, apiKey: k2, rateLimitKey: 'co-lanes' }),
      D: new ServiceClient({ ...options, apiKey: k1 }),
    };
    for (const [i, order] of orders.entries()) {
      const docHashId = docs[i] as string;
      const results = await createEwayBills(
        clients,
        order.map((client) => ({ client, docHashId, model })),
      );
      expect({ order, posts: server.postsOf(docHashId) }).toEqual({ order, posts: 1 });
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected']);
      for (const r of results.slice(1)) expect(r.status === 'rejected' && r.error).toBeInstanceOf(ValidationError);
    }
  });
});

describe('lazy reading', () => {
  it('a generator of 1,000,000 items starts sending before it is read, and an abort ends it', async () => {
    const key = freshKey('lazy');
    server = await startBillServer({ keys: [key], documents: [] });
    const client = new ServiceClient({ apiKey: key, baseUrl: server.baseUrl, preflight: 'off', rateLimiter: noWait });
    let produced = 0;
    function* endless() {
      for (let i = 0; i < 1_000_000; i++) {
        produced += 1;
        yield { docHashId: `doc_${i}`, model };
      }
    }
    const controller = new AbortController();
    let settled = 0;
    const pending = createEwayBills(client, endless(), {
      signal: controller.signal,
      keepResults: false,
      readAhead: 100,
      onResult: () => {
        settled += 1;
        if (settled === 20) controller.abort();
      },
    });
    const results = await pending;
    expect(results).toEqual([]);
    expect(server.posts.length).toBeGreaterThanOrEqual(20);
    // Read ahead is bounded: the generator was read a little past what was sent, never to its end.
    expect(produced).toBeLessThan(20 + 100 + 5);
  });

  // The timeout only guards against a hang: 1,000 real requests take seconds on a loaded machine (20 s was too short
  // with four test workers at load 20).
  it('1,000 keys × 1 item all go out, one lane per key', { timeout: 120_000 }, async () => {
    const keys = Array.from({ length: 1000 }, (_, i) => `sk_many_${i}`);
    server = await startBillServer({ keys, documents: [] });
    const baseUrl = server.baseUrl;
    const clients = new Map(
      keys.map((apiKey) => [apiKey, new ServiceClient({ apiKey, baseUrl, preflight: 'off', rateLimiter: noWait })]),
    );
    let done = 0;
    await createEwayBills(
      clients,
      keys.map((client, i) => ({ client, docHashId: `d_${i}`, model })),
      { keepResults: false, onResult: () => (done += 1) },
    );
    expect(done).toBe(1_000);
    expect(new Set(server.posts.map((p) => p.key)).size).toBe(1_000);
  });
});
