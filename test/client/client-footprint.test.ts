// Issue 29, item 8 (10,000 keys × 3 calls): a platform holds one client per company, so what one `ServiceClient` holds
// is multiplied by thousands. A client without its own headers, hooks or fetch shares one record of each with every
// other client, and its key's redactor is one small object (no closures until its `text` is first handed out). Before,
// each client built its own headers record (a dictionary-mode object: no prototype), hooks object, fetch wrapper, base
// URL string, and a redactor of three closures and a context. Counted in heap snapshots of a child process (the SDK
// built from src/index.ts, `--expose-gc`), where nothing else runs: counts of objects, the same on any machine.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEntry, runCli } from '../cli/cli-process.js';
import { HEAP_NODES_SOURCE } from '../helpers/heap-census.js';
import { validModel } from '../helpers/model.js';

const CLIENTS = 200;
const QUEUED = 40;

let sdk: Awaited<ReturnType<typeof buildEntry>>;
beforeAll(async () => {
  sdk = await buildEntry('index', 'src/index.ts');
  writeFileSync(
    join(sdk.dir, 'footprint.mjs'),
    `import { ServiceClient } from './index.mjs';

${HEAP_NODES_SOURCE}

/** Heap nodes after full collections, counted by kind: closures, contexts, dictionary-mode property stores, all. */
async function census() {
  const counts = { closures: 0, contexts: 0, dictionaries: 0, objects: 0 };
  await heapNodes((kind, label) => {
    if (kind === 'closure') counts.closures++;
    else if (kind === 'object' && label === 'system / Context') counts.contexts++;
    else if (kind === 'array' && label === '(object properties)') counts.dictionaries++;
    if (kind === 'object' || kind === 'closure' || kind === 'array') counts.objects++;
  });
  return counts;
}

const baseUrl = 'https://footprint.invalid/api/partner';
// One client first, so that what the first construction loads or builds once is in both counts.
const first = new ServiceClient({ apiKey: 'sk_footprint_first_0123456789', baseUrl });
const keys = Array.from({ length: ${CLIENTS} }, (_, k) => 'sk_footprint_key_' + k + '_0123456789');
const before = await census();
const clients = keys.map((apiKey) => new ServiceClient({ apiKey, baseUrl }));
const after = await census();
const per = {};
for (const kind of Object.keys(after)) per[kind] = (after[kind] - before[kind]) / ${CLIENTS};

// A call queued for its slot: the promises it holds, behind a limiter that grants nothing while the heap is counted
// (the limiter's own promise is one of them). The send path is loaded first by a call that is answered.
const answer = () =>
  new Response(JSON.stringify({ success: true, message: 'E-way bill 123456789012 generated' }), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
const model = ${JSON.stringify(validModel())};
await new ServiceClient({ apiKey: 'sk_footprint_warm_0123456789', baseUrl, fetch: async () => answer(), rateLimiter: { acquire: async () => undefined } }).createEwayBill('warm', model);
const grants = [];
const queuing = new ServiceClient({ apiKey: 'sk_footprint_queue_0123456789', baseUrl, fetch: async () => answer(), rateLimiter: { acquire: () => new Promise((grant) => grants.push(grant)) } });
const promises = async () => {
  const counts = { promises: 0, reactions: 0 };
  await heapNodes((kind, label) => {
    if (kind === 'object' && label === 'Promise') counts.promises++;
    else if (kind === 'hidden' && label === 'system / PromiseReaction') counts.reactions++;
  });
  return counts;
};
const idle = await promises();
const calls = [];
for (let i = 0; i < ${QUEUED}; i++) calls.push(queuing.createEwayBill('doc-' + i, model));
const waiting = await promises();
for (const grant of grants) grant(() => {});
const succeeded = (await Promise.all(calls)).filter((result) => result.success).length;
const perCall = {
  queued: grants.length,
  promises: (waiting.promises - idle.promises) / ${QUEUED},
  reactions: (waiting.reactions - idle.reactions) / ${QUEUED},
  succeeded,
};
process.stdout.write(JSON.stringify({ clients: clients.length + (first ? 1 : 0), per, perCall }) + '\\n');
`,
  );
}, 60_000);
afterAll(() => sdk?.remove());

interface Footprint {
  clients: number;
  per: Record<string, number>;
  perCall: Record<string, number>;
}

let measured: Promise<Footprint> | undefined;
/** The child's figures, measured once for both tests. */
function footprint(): Promise<Footprint> {
  measured ??= (async () => {
    const child = runCli(join(sdk.dir, 'footprint.mjs'), [], { NODE_OPTIONS: '--expose-gc' });
    expect(await child.exit(50_000)).toBe(0);
    expect(child.stderr()).toBe('');
    return JSON.parse(child.stdout().trim()) as Footprint;
  })();
  return measured;
}

describe('what a client holds (issue 29, item 8)', () => {
  it('once constructed: no closure, context or dictionary of its own, and few objects', async () => {
    const { clients, per } = await footprint();
    expect(clients).toBe(CLIENTS + 1);
    // Before: 4 closures (the fetch wrapper, the redactor's text, value and walk), 1 context and 1 headers dictionary
    // per client; 19 objects in all (11 after). The counts are per client over 200 clients, so a stray shared object is
    // a rounding error, and a closure of each client's would be 1.
    expect(per.closures).toBeLessThan(0.5);
    expect(per.contexts).toBeLessThan(0.5);
    expect(per.dictionaries).toBeLessThan(0.5);
    expect(per.objects).toBeLessThan(15);
  }, 60_000);

  it('for a createEwayBill queued for its slot: one chain of promises, and the call is sent once granted', async () => {
    const { perCall } = await footprint();
    expect(perCall.queued).toBe(QUEUED);
    // Before: 4 promises and 3 reactions per queued call (createEwayBill's own promise, resolved with the send's).
    expect(perCall.promises).toBeLessThan(3.5);
    expect(perCall.reactions).toBeLessThan(2.5);
    expect(perCall.succeeded).toBe(QUEUED);
  }, 60_000);
});
