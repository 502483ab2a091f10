// `new ServiceClient({ journal })` (issue 31, items 2 and 3) against a loopback stand-in that counts requests and bills:
// a known bill answered from the journal, a refusal kept, an uncertain attempt waited out and recovered through 604,
// the option with the call options that touch the same things, `pendingDocuments()` and `recover()`. What
// `createEwayBillOnce`'s `mayAlreadyExist` tells the journal is checked with the file journal and with the Redis journal
// (a redis-server of this file, through each client library).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEwayBillOnce, PortalError, ServiceClient, type ServiceClientOptions } from 'invoicing-service-sdk';
import {
  createFileJournal,
  type FileJournal,
  type Journal,
  JournalError,
  journalKeyHash,
} from 'invoicing-service-sdk/journal';
import { createRedisJournal } from 'invoicing-service-sdk/redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keyHashOf } from '../../src/client/journaled.js';
import { DEFAULT_RESEND_DELAY_MS } from '../../src/client/once.js';
import { validModel } from '../helpers/model.js';
import { type ClientLibrary, LIBRARIES } from '../redis/clients.js';
import { startRedis, type TestRedis } from '../redis/redis-server.js';
import { type BillServer, startBillServer } from '../workflow/bill-server.js';

const KEY = 'sk_client_journal_test';
let server: BillServer;
let redis: TestRedis;
let dir: string;
/** The journals, and the Redis clients, a test opened: closed after it. */
const opened: { close(): Promise<void> }[] = [];

let n = 0;
/** A new Redis journal, through a new client of `library`, under a prefix of its own. */
async function redisJournal(library: ClientLibrary): Promise<Journal> {
  const connection = await library.connect(redis.port);
  opened.push(connection);
  n += 1;
  return createRedisJournal({ redis: connection.redis, prefix: `client-journal-test-${n}:` });
}

/** The journals the client is tested with (where the test says so): documents `<tag>doc-<i>` are theirs. */
const JOURNALS = [
  { name: 'the file journal', tag: '', open: async (): Promise<Journal> => fileJournal() },
  ...LIBRARIES.map((library, i) => ({
    name: `the Redis journal (${library.name})`,
    tag: `redis-${i}-`,
    open: () => redisJournal(library),
  })),
];
const DOCS = JOURNALS.flatMap(({ tag }) => Array.from({ length: 20 }, (_, i) => `${tag}doc-${i}`));

beforeAll(async () => {
  [server, redis] = await Promise.all([startBillServer({ keys: [KEY], documents: DOCS, slowMs: 400 }), startRedis()]);
  dir = mkdtempSync(join(tmpdir(), 'client-journal-'));
}, 300_000);
afterEach(async () => {
  await Promise.all(opened.splice(0).map((each) => each.close()));
});
afterAll(async () => {
  await server?.close();
  await redis?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A client of the stand-in (no rate limit, no retries) on `journal`. */
function clientOn(journal: Journal, options: Partial<ServiceClientOptions> = {}) {
  return new ServiceClient({
    apiKey: KEY,
    baseUrl: server.baseUrl,
    maxRetries: 0,
    // The stand-in has no rate limit.
    rateLimiter: { acquire: async () => undefined },
    journal,
    ...options,
  });
}

/** A client on a new file journal. */
function clientWith(options: Partial<ServiceClientOptions> = {}) {
  const journal = fileJournal();
  return { client: clientOn(journal, options), journal };
}

/** A new file journal, closed after the test. */
function fileJournal(): FileJournal {
  n += 1;
  const journal = createFileJournal(join(dir, `journal-${n}`));
  opened.push(journal);
  return journal;
}

describe('ServiceClient with a journal', () => {
  it('records the bill, and answers the same document again from the journal without a request', async () => {
    const { client, journal } = clientWith();
    const first = await client.createEwayBill('doc-0', validModel());
    expect(first).toMatchObject({ success: true, outcome: 'generated' });
    expect(first.fromJournal).toBeUndefined();
    expect(first.lastResponse?.status).toBe(200);
    const record = await journal.get({ baseUrl: server.baseUrl, docHashId: 'doc-0' });
    expect(record).toMatchObject({ status: 'generated', keyHash: journalKeyHash(KEY) });
    expect(JSON.stringify(record)).not.toContain(KEY);
    const again = await client.createEwayBill('doc-0', validModel());
    expect(again).toMatchObject({ success: true, outcome: 'generated', fromJournal: true, message: first.message });
    // No request, so no answer: lastResponse is said to be undefined (as its type says), not enumerable like the others.
    expect(Object.getOwnPropertyDescriptor(again, 'lastResponse')).toMatchObject({
      value: undefined,
      enumerable: false,
    });
    expect(JSON.stringify(again)).toBe(JSON.stringify({ ...again }));
    expect(server.postsOf('doc-0')).toBe(1);
    expect(server.generated.get('doc-0')).toBe(1);
  });

  it('refuses a refused body again locally with the recorded PortalError and no request, unless retryRefused', async () => {
    const { client } = clientWith();
    server.script('doc-1', 'portal-214-as-502');
    const first = await client.createEwayBill('doc-1', validModel()).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(PortalError);
    const again = await client.createEwayBill('doc-1', validModel()).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(PortalError);
    expect(again).toMatchObject({
      code: (first as PortalError).code,
      portalCode: (first as PortalError).portalCode,
      category: (first as PortalError).category,
      message: (first as PortalError).message,
    });
    expect(server.postsOf('doc-1')).toBe(1);
    // A different body is sent.
    const edited = await client.createEwayBill('doc-1', validModel({ vehicle_number: 'MH12AB9999' }));
    expect(edited).toMatchObject({ outcome: 'generated' });
    expect(server.postsOf('doc-1')).toBe(2);
  });

  it('sends a refused body again with retryRefused: true', async () => {
    const { client } = clientWith();
    server.script('doc-2', 'portal-214-as-502');
    await expect(client.createEwayBill('doc-2', validModel())).rejects.toBeInstanceOf(PortalError);
    const result = await client.createEwayBill('doc-2', validModel(), { retryRefused: true });
    expect(result).toMatchObject({ outcome: 'generated' });
    expect(server.postsOf('doc-2')).toBe(2);
  });

  it('keeps an uncertain attempt pending, waits it out, and takes the 604 as already-generated', async () => {
    const { client } = clientWith();
    server.script('doc-3', 'generate-then-drop');
    const lost = await client.createEwayBill('doc-3', validModel()).catch((error: unknown) => error);
    expect(lost).toMatchObject({ mayHaveSucceeded: true });
    expect((await client.pendingDocuments()).map((doc) => doc.docHashId)).toEqual(['doc-3']);
    const result = await client.createEwayBill('doc-3', validModel());
    expect(result).toMatchObject({ success: true, outcome: 'already-generated' });
    // The resend left only once the first attempt (which this process saw end) could no longer be in flight: 5 s
    // after its end, as createEwayBillOnce's resendDelayMs (a millisecond of slack for the two clocks' rounding).
    const [first, second] = server.posts.filter((post) => post.docHashId === 'doc-3');
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(DEFAULT_RESEND_DELAY_MS - 1);
    expect(server.generated.get('doc-3')).toBe(1);
    expect(await client.pendingDocuments()).toEqual([]);
  });

  it('createEwayBillOnce recovers through the journal, with no extra resend delay of its own', async () => {
    const { client } = clientWith();
    server.script('doc-4', 'generate-then-drop');
    const result = await createEwayBillOnce(client, 'doc-4', validModel());
    expect(result).toMatchObject({ outcome: 'already-generated', recovered: true });
    expect(server.postsOf('doc-4')).toBe(2);
    expect(server.generated.get('doc-4')).toBe(1);
    const again = await createEwayBillOnce(client, 'doc-4', validModel(), { resendDelayMs: 0 });
    expect(again).toMatchObject({ outcome: 'already-generated', recovered: true, fromJournal: true });
    expect(Object.getOwnPropertyDescriptor(again, 'lastResponse')).toMatchObject({
      value: undefined,
      enumerable: false,
    });
    expect(server.postsOf('doc-4')).toBe(2);
  });

  describe.each(JOURNALS)('with $name', ({ tag, open }) => {
    const doc = (i: number) => `${tag}doc-${i}`;
    /** Makes the bill of `docHashId` by a request no journal saw (another process without a journal, an older version). */
    async function billMadeOutside(docHashId: string) {
      const outside = new ServiceClient({ apiKey: KEY, baseUrl: server.baseUrl, maxRetries: 0 });
      await outside.createEwayBill(docHashId, validModel());
      expect(server.generated.get(docHashId)).toBe(1);
    }

    /**
     * `createEwayBillOnce` with `mayAlreadyExist` on a new journal: its result, the record it left, and a second
     * `createEwayBill` of the document on the same client.
     */
    async function onceMayAlreadyExist(docHashId: string) {
      const journal = await open();
      const client = clientOn(journal);
      const result = await createEwayBillOnce(client, docHashId, validModel(), { mayAlreadyExist: true });
      const record = await journal.get({ baseUrl: server.baseUrl, docHashId });
      const again = await client.createEwayBill(docHashId, validModel());
      return { result, record, again };
    }

    it("createEwayBillOnce's mayAlreadyExist: a 604 to a bill made outside the journal is recorded as the bill", async () => {
      await billMadeOutside(doc(15));
      const { result, record, again } = await onceMayAlreadyExist(doc(15));
      expect(result).toMatchObject({ outcome: 'already-generated', recovered: true });
      // Before: the 604 was recorded 'not-sent' and the record deleted; the journal never learnt the bill.
      expect(record).toMatchObject({ status: 'generated', result: { outcome: 'already-generated' } });
      expect(again).toMatchObject({ outcome: 'already-generated', fromJournal: true });
      expect(server.postsOf(doc(15))).toBe(2);
      expect(server.generated.get(doc(15))).toBe(1);
    });

    it('mayAlreadyExist on a document with no bill yet: generated, recorded as generated, one POST', async () => {
      const { result, record, again } = await onceMayAlreadyExist(doc(17));
      expect(result).toMatchObject({ outcome: 'generated', recovered: false });
      expect(record).toMatchObject({ status: 'generated', result: { outcome: 'generated' } });
      expect(again).toMatchObject({ outcome: 'generated', fromJournal: true, message: result.message });
      expect(server.postsOf(doc(17))).toBe(1);
    });

    it('without mayAlreadyExist, a 604 to a document the journal never saw is not taken for its bill', async () => {
      await billMadeOutside(doc(16));
      const journal = await open();
      await expect(createEwayBillOnce(clientOn(journal), doc(16), validModel())).rejects.toMatchObject({
        portalCode: 604,
      });
      expect(await journal.get({ baseUrl: server.baseUrl, docHashId: doc(16) })).toBeUndefined();
      expect(await journal.pending()).toEqual([]);
      expect(server.postsOf(doc(16))).toBe(2);
    });
  });

  it('waits after a lost answer as resendDelayMs does (5 s after the attempt ended), not its whole timeout', async () => {
    // A 120 s timeout: waiting out the recorded window (start + timeout + 5 s) would outlast the test's own limit.
    const { client } = clientWith({ timeout: 120_000 });
    server.script('doc-13', 'generate-then-drop');
    const result = await createEwayBillOnce(client, 'doc-13', validModel());
    expect(result).toMatchObject({ outcome: 'already-generated', recovered: true });
    expect(server.generated.get('doc-13')).toBe(1);
  }, 60_000);

  it('recover() resolves each pending document from its recorded body, one outcome per document', async () => {
    const { client, journal } = clientWith();
    server.script('doc-5', 'generate-then-drop');
    server.script('doc-6', 'drop');
    await expect(client.createEwayBill('doc-5', validModel())).rejects.toMatchObject({ mayHaveSucceeded: true });
    await expect(client.createEwayBill('doc-6', validModel())).rejects.toMatchObject({ mayHaveSucceeded: true });
    // Another client on the same journal (a restarted process).
    const restarted = clientOn(journal);
    const results = await restarted.recover();
    expect(results.map((r) => [r.docHashId, r.status, r.status === 'fulfilled' ? r.value.outcome : r.error])).toEqual([
      ['doc-5', 'fulfilled', 'already-generated'],
      ['doc-6', 'fulfilled', 'generated'],
    ]);
    expect(server.generated.get('doc-5')).toBe(1);
    expect(server.generated.get('doc-6')).toBe(1);
    expect(await restarted.pendingDocuments()).toEqual([]);
    expect(await restarted.recover()).toEqual([]);
  });

  it('ends a call waiting for an earlier attempt in flight at its signal, with nothing sent', async () => {
    const { client } = clientWith();
    server.script('doc-7', 'generate-then-drop');
    await expect(client.createEwayBill('doc-7', validModel())).rejects.toMatchObject({ mayHaveSucceeded: true });
    const controller = new AbortController();
    const waiting = client.createEwayBill('doc-7', validModel(), { signal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.postsOf('doc-7')).toBe(1);
    expect((await client.pendingDocuments()).map((doc) => doc.docHashId)).toEqual(['doc-7']);
  });

  it("lets a second call of the same document wait for the first one's claim, then answers from the journal", async () => {
    const { client } = clientWith();
    server.script('doc-8', 'generate-then-slow');
    const [a, b] = await Promise.all([
      client.createEwayBill('doc-8', validModel()),
      client.createEwayBill('doc-8', validModel()),
    ]);
    expect([a.fromJournal, b.fromJournal].sort()).toEqual([true, undefined]);
    expect(server.postsOf('doc-8')).toBe(1);
  });

  it("ends a call waiting for another call's claim at its signal", async () => {
    const { client } = clientWith();
    server.script('doc-9', 'generate-then-slow');
    const before = server.posts.length;
    const first = client.createEwayBill('doc-9', validModel());
    await server.waitForPosts(before + 1);
    const controller = new AbortController();
    const second = client.createEwayBill('doc-9', validModel(), { signal: controller.signal });
    controller.abort();
    await expect(second).rejects.toMatchObject({ name: 'AbortError' });
    await expect(first).resolves.toMatchObject({ outcome: 'generated' });
    expect(server.postsOf('doc-9')).toBe(1);
  });

  it('records a new intent per attempt: a 429 retried with maxRetries leaves one bill and nothing pending', async () => {
    const { client } = clientWith({ maxRetries: 2 });
    server.script('doc-10', 'rate-limited');
    const result = await client.createEwayBill('doc-10', validModel());
    expect(result).toMatchObject({ outcome: 'generated' });
    expect(server.postsOf('doc-10')).toBe(2);
    expect(await client.pendingDocuments()).toEqual([]);
  });

  it("sends nothing when the intent cannot be recorded: the slot goes back unused, the call fails with the journal's error", async () => {
    const file = fileJournal();
    const failing = new JournalError('the journal is full');
    // The file journal, but its intent write fails (a full disk, Redis down): the claim and release still work.
    const journal = Object.assign(Object.create(file) as FileJournal, {
      recordIntent: async () => {
        throw failing;
      },
    });
    const released: unknown[] = [];
    const client = clientOn(journal, {
      rateLimiter: { acquire: async () => Object.assign((outcome?: unknown) => void released.push(outcome), {}) },
    });
    const error = await client.createEwayBill('doc-14', validModel()).catch((thrown: unknown) => thrown);
    expect(error).toBe(failing);
    expect((error as JournalError).mayHaveSucceeded).toBe(false);
    expect(server.postsOf('doc-14')).toBe(0);
    expect(released).toEqual([{ rateLimited: false, unused: true }]);
    expect(await client.pendingDocuments()).toEqual([]);
  });

  it("records the key function's key hash, and the rateLimitKey changes nothing in the record", async () => {
    const { client, journal } = clientWith({ apiKey: async () => KEY, rateLimitKey: 'company-1' });
    await client.createEwayBill('doc-11', validModel());
    const record = await journal.get({ baseUrl: server.baseUrl, docHashId: 'doc-11' });
    expect(record?.keyHash).toBe(journalKeyHash(KEY));
  });

  it('hashes the key as the journal does (Web Crypto in the client, node:crypto in the journal)', async () => {
    for (const key of [KEY, ' padded-key ', 'k']) expect(await keyHashOf(key)).toBe(journalKeyHash(key));
  });

  it('refuses a journal that is not one, and a retryRefused that is not a boolean', async () => {
    expect(() => new ServiceClient({ apiKey: KEY, baseUrl: server.baseUrl, journal: {} as never })).toThrow(
      /journal must be a Journal .*lacks claim, recordIntent/,
    );
    const { client } = clientWith();
    await expect(client.createEwayBill('doc-12', validModel(), { retryRefused: 'yes' as never })).rejects.toThrow(
      /options.retryRefused must be a boolean/,
    );
  });

  it('pendingDocuments() and recover() say the client needs a journal', async () => {
    const plain = new ServiceClient({ apiKey: KEY, baseUrl: server.baseUrl });
    await expect(plain.pendingDocuments()).rejects.toThrow(/needs a journal/);
    await expect(plain.recover()).rejects.toThrow(/needs a journal/);
  });
});
