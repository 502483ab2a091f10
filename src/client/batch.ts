// createEwayBills, the batch's public function. The batch itself (./batch-run.ts: the short function that wires its
// parts, and one run's steps; ./batch-items.ts, ./batch-lanes.ts, ./batch-estimate.ts) is imported on the first batch,
// so that a bundler that splits code keeps it out of the client's first load. The public types: ./batch-types.ts.
import { lazyPart } from '../internal/lazy.js';
import type {
  EwayBillBatchClients,
  EwayBillBatchItem,
  EwayBillBatchOptions,
  EwayBillBatchResult,
} from './batch-types.js';

const batchPart = /* @__PURE__ */ lazyPart(() => import('./batch-run.js'));

/**
 * Creates the e-way bills of many documents in one call, over one client or several (one per company key).
 * Every item settles on its own: the promise resolves, in input order, with a result per item (a value or a typed
 * error); one failure never rejects the batch. Keys run in parallel, each at its rate limit; items of one key go one at
 * a time, so a huge batch holds no more than a few requests in flight.
 *
 * Items are read lazily, at most `readAhead` ahead of those started, so a generator of a million lines starts sending
 * at once and its items are not all held; with `keepResults: false` no result is kept after `onResult` (only each
 * document id, per key, for the duplicate check), and the promise resolves with an empty array (for endless input,
 * use `onResult`). After `UNAUTHORIZED` or `FORBIDDEN` on a
 * key, its remaining items settle at once with that error, unsent; other keys go on. A document listed twice for one
 * key (under any client name, by two clients of the key, or by clients joined through a shared `rateLimitKey`) is
 * refused, never sent twice.
 *
 * @throws {TypeError} before anything is sent, when `clients` or `options` are malformed, or an array's item is
 *   (naming the item); an item of another iterable that is malformed settles as a `ValidationError`, unsent.
 * @example
 * const results = await createEwayBills({ acme: acmeClient, globex: globexClient }, [
 *   { client: 'acme', docHashId: 'doc_1', model },
 *   { client: 'globex', docHashId: 'doc_2', model },
 * ], { onProgress: ({ done, total, etaMs }) => console.log(`${done}/${total}, ${Math.ceil(etaMs / 1000)} s left`) });
 * for (const r of results) if (r.status === 'rejected') console.error(r.docHashId, r.error.message);
 */
export async function createEwayBills(
  clients: EwayBillBatchClients,
  items: Iterable<EwayBillBatchItem>,
  options: EwayBillBatchOptions = {},
): Promise<EwayBillBatchResult[]> {
  // Always awaited, loaded or not: a batch starts the same way on the first call and on later ones.
  const { runBatch } = await batchPart.load();
  return runBatch(clients, items, options);
}
