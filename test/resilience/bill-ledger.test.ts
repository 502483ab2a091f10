// Issue 17: "once a request may have been sent, every outcome of that call says so". A seeded fault-injection run
// against a loopback stand-in that counts bills per document: every success has its bill, and every outcome that says
// "not sent" (`mayHaveSucceeded` false) has none, whatever the faults, timeouts and caller aborts.
// LEDGER_REPORT=1 prints each seed's tally.
import { createEwayBillOnce, mayHaveSucceeded, ServiceClient } from 'invoicing-service-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { freshKey, validModel } from '../helpers/model.js';
import { type BillServer, type Script, startBillServer } from '../workflow/bill-server.js';

/** mulberry32: a small seeded generator, so a failing seed can be run again. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FAULTS: readonly Script[] = [
  'normal',
  'generate-then-drop',
  'drop',
  'error-500',
  'generate-then-hang',
  'hang',
  'rate-limited',
  'portal-214-as-502',
  'success-false-200',
  'generate-then-slow',
];

const DOCS = 60;
// Wide against the machine's load: a normal answer always beats the client's timeout, a slow one never does.
const SLOW_MS = 2500;
const TIMEOUT_MS = 1200;
let server: BillServer | undefined;
afterEach(() => server?.close());

describe('seeded fault injection: the outcome of every call agrees with the bills that exist', () => {
  for (const seed of [17, 1_789, 424_242]) {
    it(`seed ${seed}: ${DOCS} documents, faults, timeouts and aborts`, async () => {
      const random = seeded(seed);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
      const key = freshKey('ledger');
      const docs = Array.from({ length: DOCS }, (_, i) => `doc_${seed}_${i}`);
      const extra = [`doc_${seed}_ok`, `doc_${seed}_lost`, `doc_${seed}_unsent`];
      server = await startBillServer({ keys: [key], documents: [...docs, ...extra], slowMs: SLOW_MS });
      const live = server;
      const client = new ServiceClient({
        apiKey: key,
        baseUrl: live.baseUrl,
        rateLimiter: { acquire: async () => undefined },
        preflight: 'off',
        timeout: TIMEOUT_MS,
        logger: { debug() {}, warn() {} },
      });
      const runs = docs.map(async (doc) => {
        const steps = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(FAULTS));
        live.script(doc, ...steps);
        const once = random() < 0.6;
        const signal = random() < 0.3 ? AbortSignal.timeout(50 + Math.floor(random() * 3000)) : undefined;
        const resendDelayMs = Math.floor(random() * 60);
        try {
          if (once) await createEwayBillOnce(client, doc, validModel(), { signal, resendDelayMs });
          else await client.createEwayBill(doc, validModel(), { signal });
          return { doc, steps, outcome: 'success' as const };
        } catch (error) {
          return { doc, steps, outcome: mayHaveSucceeded(error) ? ('maybe' as const) : ('not-sent' as const), error };
        }
      });
      // Each kind of outcome, whatever the machine's load does to the seeded mix (its timeouts and aborts are real
      // time): a call that succeeds, one whose answer never comes (sent, then timed out: may have succeeded), and one
      // aborted before it was sent.
      const fixed = [
        { doc: `doc_${seed}_ok`, steps: ['normal'], signal: undefined },
        { doc: `doc_${seed}_lost`, steps: ['generate-then-hang'], signal: undefined },
        { doc: `doc_${seed}_unsent`, steps: ['normal'], signal: AbortSignal.abort(new Error('gave up first')) },
      ] as const;
      for (const { doc, steps } of fixed) live.script(doc, ...steps);
      // The successful one on a client whose timeout only guards against a hang: a loaded machine cannot make it late.
      const steady = new ServiceClient({
        apiKey: key,
        baseUrl: live.baseUrl,
        rateLimiter: { acquire: async () => undefined },
        preflight: 'off',
        timeout: 60_000,
        logger: { debug() {}, warn() {} },
      });
      const forced = fixed.map(async ({ doc, steps, signal }) => {
        try {
          await (doc.endsWith('_lost') ? client : steady).createEwayBill(doc, validModel(), { signal });
          return { doc, steps: [...steps], outcome: 'success' as const };
        } catch (error) {
          return {
            doc,
            steps: [...steps],
            outcome: mayHaveSucceeded(error) ? ('maybe' as const) : ('not-sent' as const),
            error,
          };
        }
      });
      const results = [...(await Promise.all(runs)), ...(await Promise.all(forced))];
      expect(results.slice(-3).map((result) => result.outcome)).toEqual(['success', 'maybe', 'not-sent']);
      // Requests the service is still working on (slow answers) record their bills before the ledger is read.
      await live.idle();
      const tally = { success: 0, maybe: 0, 'not-sent': 0, bills: 0 };
      for (const result of results) {
        const bills = live.generated.get(result.doc) ?? 0;
        tally[result.outcome] += 1;
        tally.bills += bills;
        const where = `${result.doc} (${result.steps.join(' → ')}): ${result.outcome}, ${bills} bill(s), ${String(result.error)}`;
        expect(bills, where).toBeLessThanOrEqual(1);
        if (result.outcome === 'success') expect(bills, where).toBe(1);
        if (result.outcome === 'not-sent') expect(bills, where).toBe(0);
      }
      if (process.env.LEDGER_REPORT) console.log(`seed ${seed}`, JSON.stringify(tally), `posts ${live.posts.length}`);
      // Every kind of outcome was checked against the bills (the three fixed calls make sure of it).
      expect(tally.success).toBeGreaterThan(0);
      expect(tally.maybe).toBeGreaterThan(0);
      expect(tally['not-sent']).toBeGreaterThan(0);
    });
  }
});
