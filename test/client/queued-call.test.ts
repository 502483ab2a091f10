// Issue 29, item 8, "the slot before the state": a call waiting for its rate-limit slot holds what it needs to be sent
// (the call, its body, the limiter's entry and one continuation), not the suspended frames of the send path. Before,
// each queued `createEwayBill` held four suspended async functions (`#sendEwayBill`, `Transport.send`, `#attempt`
// and `acquireAll`, each with its register file, context and promise). Counted in a heap snapshot of a child process
// (the SDK built from src/index.ts, `--expose-gc`), where nothing else runs: the figure is the same on any machine.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEntry, runCli } from '../cli/cli-process.js';
import { HEAP_NODES_SOURCE } from '../helpers/heap-census.js';
import { validModel } from '../helpers/model.js';

const QUEUED = 40;

let sdk: Awaited<ReturnType<typeof buildEntry>>;
beforeAll(async () => {
  sdk = await buildEntry('index', 'src/index.ts');
  // What both children share: the model, a success answer, the send path loaded, and the heap counted by kind.
  writeFileSync(
    join(sdk.dir, 'heap-kinds.mjs'),
    `import { ServiceClient } from './index.mjs';

export const model = ${JSON.stringify(validModel())};
export const baseUrl = 'https://queued.invalid/api/partner';
export const answer = () =>
  new Response(JSON.stringify({ success: true, message: 'E-way bill 123456789012 generated' }), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });

${HEAP_NODES_SOURCE}

// The send path loaded (ky, the preflight, the exchange) before the first count.
const warm = new ServiceClient({ apiKey: 'sk_queued_warm_0123456789', baseUrl, fetch: async () => answer(), rateLimiter: { acquire: async () => undefined } });
await warm.createEwayBill('warm', model);

/** After full collections: how many objects of each kind the heap holds (a Generator: a suspended async function). */
export async function kinds() {
  const counts = { promises: 0, reactions: 0, closures: 0, contexts: 0, generators: 0 };
  await heapNodes((kind, named) => {
    if (kind === 'closure') counts.closures++;
    else if (kind === 'object' && named === 'Promise') counts.promises++;
    else if (kind === 'object' && named === 'system / Context') counts.contexts++;
    else if (kind === 'object' && named === 'Generator') counts.generators++;
    else if (kind === 'hidden' && named === 'system / PromiseReaction') counts.reactions++;
  });
  return counts;
}
`,
  );
  writeFileSync(
    join(sdk.dir, 'queued.mjs'),
    `import { ServiceClient } from './index.mjs';
import { answer, baseUrl, kinds, model } from './heap-kinds.mjs';

// A limiter that grants nothing while the heap is counted: every call stays queued for its slot.
const grants = [];
const rateLimiter = { acquire: () => new Promise((grant) => grants.push(grant)) };
const client = new ServiceClient({ apiKey: 'sk_queued_key_0123456789', baseUrl, fetch: async () => answer(), rateLimiter });
const before = (await kinds()).generators;
const calls = [];
for (let i = 0; i < ${QUEUED}; i++) calls.push(client.createEwayBill('doc-' + i, model));
for (let i = 0; i < 200 && grants.length < ${QUEUED}; i++) await new Promise((resolve) => setImmediate(resolve));
const queued = grants.length;
const after = (await kinds()).generators;
// Then each is granted and must succeed.
for (const grant of grants) grant(() => {});
const results = await Promise.all(calls);
process.stdout.write(JSON.stringify({ queued, frames: after - before, succeeded: results.filter((r) => r.success).length }) + '\\n');
`,
  );
  writeFileSync(
    join(sdk.dir, 'held-kinds.mjs'),
    `import { createProcessRateLimiter, ServiceClient } from './index.mjs';
import { answer, baseUrl, kinds, model } from './heap-kinds.mjs';

// The SDK's own in-process limiter, as the client is given it, spacing each start from the previous answer. The key's
// first call waits in a fetch that answers only when told: every later call waits for its slot.
const rateLimiter = createProcessRateLimiter({
  interval: 1,
  margin: 0,
  waitForAnswer: true,
  answerWaitLimit: Number.POSITIVE_INFINITY,
});
const held = [];
const fetch = () => new Promise((resolve) => held.push(resolve));
const client = new ServiceClient({ apiKey: 'sk_kinds_key_0123456789', baseUrl, fetch, rateLimiter });
const calls = [client.createEwayBill('doc-first', model)];
for (let i = 0; i < 200 && held.length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
// A few queued first, so the key's own waiting state (its pending turn) is in both counts: the difference is the calls'.
for (let i = 0; i < 5; i++) calls.push(client.createEwayBill('doc-early-' + i, model));
const before = await kinds();
// With SIGNAL, each call has a signal of its own (its controller kept, as a caller keeps it): one listener each.
const controllers = [];
const optionsOf = () =>
  process.env.SIGNAL ? { signal: controllers[controllers.push(new AbortController()) - 1].signal } : undefined;
for (let i = 0; i < ${QUEUED}; i++) calls.push(client.createEwayBill('doc-' + i, model, optionsOf()));
const after = await kinds();
const stillQueued = held.length === 1;
// Per queued call, to the nearest whole object: the engine's own objects made meanwhile (a compiled function, a
// few) are not the calls'.
const perCall = Object.fromEntries(
  Object.keys(after).map((kind) => [kind, Math.round((after[kind] - before[kind]) / ${QUEUED})]),
);
// Then each is sent in turn and must succeed.
const answering = setInterval(() => {
  for (const resolve of held.splice(0)) resolve(answer());
}, 1);
const results = await Promise.all(calls);
clearInterval(answering);
process.stdout.write(JSON.stringify({ stillQueued, perCall, succeeded: results.filter((r) => r.success).length }) + '\\n');
`,
  );
}, 60_000);
afterAll(() => sdk?.remove());

describe('a call queued for its slot (issue 29, item 8)', () => {
  it('holds no suspended async function of the send path, and is sent once granted', async () => {
    const child = runCli(join(sdk.dir, 'queued.mjs'), [], { NODE_OPTIONS: '--expose-gc' });
    expect(await child.exit(50_000)).toBe(0);
    expect(child.stderr()).toBe('');
    const { queued, frames, succeeded } = JSON.parse(child.stdout().trim()) as Record<string, number>;
    // Every call reached the limiter before the count (it asks the limiter without a turn of the event loop).
    expect(queued).toBe(QUEUED);
    // Before: 4 per queued call (160). A frame of its own per call would be 40.
    expect(frames).toBeLessThan(QUEUED);
    expect(succeeded).toBe(QUEUED);
  }, 60_000);

  // Issue 29, item 8, "a call queued for its slot retains ≤ 1.5 KiB": at the SDK's own limiter, the line holds the
  // call's one record (no promise, closure or listener of the limiter's per call), and the call holds its promise and
  // the one function that settles it. Counted by kind, not in bytes, so the figure is the same on every machine.
  it('holds one record at the in-process limiter: no closure or promise of the limiter per queued call', async () => {
    // Before: 4 promises, 3 reactions, 8 closures and 5 contexts per queued call (the limiter's promise, its resolve,
    // leave and abort functions, the transport's continuations, the mapping of the result). Now: the record's promise
    // (and its resolve function with that function's context): `createEwayBill` is not async, so the promise it returns
    // is that one, with no promise or reaction of its own.
    expect(await heldKinds({})).toEqual({ promises: 1, reactions: 0, closures: 1, contexts: 1, generators: 0 });
  }, 60_000);

  it('with a signal of its own, adds one listener object at the limiter, not closures', async () => {
    // Its `Watched` object is the listener (it holds the deadline's timer too); the one more closure and context are
    // Node's own, for the signal's listener. Before: 4 closures (the limiter's leave, abort and grant functions too).
    expect(await heldKinds({ SIGNAL: '1' })).toEqual({
      promises: 1,
      reactions: 0,
      closures: 2,
      contexts: 2,
      generators: 0,
    });
  }, 60_000);
});

/**
 * Runs held-kinds.mjs: what each of its queued calls adds to the heap, by kind, once it has checked that they were
 * all still queued when counted and that every call then succeeded.
 */
async function heldKinds(env: Record<string, string>): Promise<Record<string, number>> {
  const child = runCli(join(sdk.dir, 'held-kinds.mjs'), [], { NODE_OPTIONS: '--expose-gc', ...env });
  expect(await child.exit(50_000)).toBe(0);
  expect(child.stderr()).toBe('');
  const { stillQueued, perCall, succeeded } = JSON.parse(child.stdout().trim()) as {
    stillQueued: boolean;
    perCall: Record<string, number>;
    succeeded: number;
  };
  // The first call was still in fetch when the heap was counted: every other call waited for its slot.
  expect(stillQueued).toBe(true);
  expect(succeeded).toBe(QUEUED + 6);
  return perCall;
}
