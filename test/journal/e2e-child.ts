// A process of test/journal/crash-recovery.test.ts, built by tsup and run by Node: a real `ServiceClient` with a file or
// Redis journal (`new ServiceClient({ journal })`). Recovers the journal's pending documents (`client.recover()`),
// then creates the e-way bill of every document doc-0 … doc-(COUNT-1) with `createEwayBillOnce`, printing one line
// per document; {"done":true} at the end.
import { createEwayBillOnce, ServiceClient } from '../../src/index.js';
import { isDefinitiveRefusal } from '../../src/journal/decide.js';
import { createFileJournal, type Journal } from '../../src/journal/index.js';
import { createRedisJournal } from '../../src/redis/index.js';
import { validModel } from '../helpers/model.js';
import { connectRedis } from './child-redis.js';

const { JOURNAL_PATH, BASE_URL, API_KEY, COUNT, TIMEOUT_MS, REDIS_PORT, LIBRARY, PREFIX } = process.env;
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
  journal,
});
const say = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

/** What the test reads of one document's end: its outcome, or 'refused' (definitive) or 'unknown'. */
function report(docHashId: string, settled: { value: { outcome?: string; fromJournal?: true } } | { error: unknown }) {
  if ('value' in settled) {
    return { docHashId, status: settled.value.outcome, fromJournal: settled.value.fromJournal === true };
  }
  const status = isDefinitiveRefusal(settled.error) ? 'refused' : 'unknown';
  return { docHashId, status, code: (settled.error as { code?: string }).code };
}

if ('open' in journal) await (journal as ReturnType<typeof createFileJournal>).open();
for (const result of await client.recover()) {
  say({ recovered: true, ...report(result.docHashId, result) });
}
for (let i = 0; i < Number(COUNT); i++) {
  const docHashId = `doc-${i}`;
  // An uncertain failure is sent once more; the journaled client waits until the first request can no longer be in
  // flight at the service, and takes its 604 as already generated.
  const settled = await createEwayBillOnce(client, docHashId, validModel()).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  say(report(docHashId, settled));
}
await journal.close();
await redis?.close();
say({ done: true });
