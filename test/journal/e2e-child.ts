// A process of test/journal/crash-recovery.test.ts, built by tsup and run by Node: the wiring plan of issue 31 (see
// /work/notes/journal.md, "Wiring plan") around a real ServiceClient, with a file or Redis journal, until the integrator wires
// it into the client. Recovers the journal's pending documents from their recorded bodies, then creates the e-way
// bill of every document doc-0 … doc-(COUNT-1), printing one line per call; {"done":true} at the end.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceClient } from '../../src/index.js';
import { outcomeOfError, planSend } from '../../src/journal/decide.js';
import { createFileJournal, type Journal, journalBodyHash, journalKeyHash } from '../../src/journal/index.js';
import type { EwayBillModel } from '../../src/model/schemas.js';
import { createRedisJournal } from '../../src/redis/index.js';
import { validModel } from '../helpers/model.js';
import { connectRedis } from './child-redis.js';

const { JOURNAL_PATH, BASE_URL, API_KEY, COUNT, TIMEOUT_MS, MARGIN_MS, REDIS_PORT, LIBRARY, PREFIX } = process.env;
// JOURNAL_PATH: a file journal; else the Redis journal on REDIS_PORT through LIBRARY, under PREFIX.
const redis = JOURNAL_PATH ? undefined : await connectRedis(LIBRARY as string, Number(REDIS_PORT));
const journal: Journal = redis
  ? createRedisJournal({ redis: redis.redis, prefix: PREFIX, logger: { warn: () => {} } })
  : createFileJournal(JOURNAL_PATH as string);
const client = new ServiceClient({
  apiKey: API_KEY as string,
  baseUrl: BASE_URL as string,
  maxRetries: 0,
  timeout: Number(TIMEOUT_MS),
  // The stand-in has no rate limit: no waiting between requests.
  rateLimiter: { acquire: async () => undefined },
});
/** How long a request may be in flight at the service: its timeout and a margin (what resendDelayMs covers). */
const IN_FLIGHT_MS = Number(TIMEOUT_MS) + Number(MARGIN_MS);
const keyHash = journalKeyHash(API_KEY as string);
const say = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

async function create(docHashId: string, model: EwayBillModel) {
  const document = { baseUrl: client.baseUrl, docHashId };
  const body = JSON.stringify(model);
  const bodyHash = journalBodyHash(body);
  const owner = randomUUID();
  // The lease covers a wait for an earlier attempt and this one's request; another process waits for it to end.
  const leaseMs = 2 * IN_FLIGHT_MS + 1000;
  let claim = await journal.claim(document, owner, leaseMs);
  for (let turn = 0; !claim.claimed; turn++) {
    if (turn === 1000) throw new Error(`${docHashId}: its claim was never free`);
    await sleep(Math.min(Math.max(claim.expiresAt - claim.now, 1), 100));
    claim = await journal.claim(document, owner, leaseMs);
  }
  try {
    const plan = planSend(claim.record, bodyHash, claim.now);
    if (plan.kind !== 'send') return { docHashId, status: plan.kind, fromJournal: true };
    if (plan.waitMs > 0) await sleep(plan.waitMs);
    const sent = await journal.recordIntent({ ...document, owner, body, bodyHash, keyHash, inFlightMs: IN_FLIGHT_MS });
    try {
      const { message } = await client.createEwayBill(docHashId, model);
      await journal.recordOutcome(document, sent.attempt, {
        status: 'generated',
        result: { outcome: 'generated', message },
      });
      return { docHashId, status: 'generated' };
    } catch (error) {
      const outcome = outcomeOfError(error, plan.mayAlreadyExist);
      if (outcome) await journal.recordOutcome(document, sent.attempt, outcome);
      const status =
        outcome?.status === 'generated' ? 'already-generated' : outcome?.status === 'refused' ? 'refused' : 'unknown';
      return { docHashId, status, code: (error as { code?: string }).code };
    }
  } finally {
    await journal.release(document, owner);
  }
}

if ('open' in journal) await (journal as ReturnType<typeof createFileJournal>).open();
for (const record of await journal.pending({ baseUrl: client.baseUrl })) {
  say({ recovered: true, ...(await create(record.docHashId, JSON.parse(record.body as string) as EwayBillModel)) });
}
for (let i = 0; i < Number(COUNT); i++) {
  const first = await create(`doc-${i}`, validModel());
  say(first);
  // As createEwayBillOnce does: an uncertain failure is sent once more at once; the journal makes it wait until the
  // first request can no longer be in flight at the service.
  if (first.status === 'unknown') say({ resent: true, ...(await create(`doc-${i}`, validModel())) });
}
await journal.close();
await redis?.close();
say({ done: true });
