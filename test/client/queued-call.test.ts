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
  writeFileSync(
    join(sdk.dir, 'queued.mjs'),
    `import { ServiceClient } from './index.mjs';

const model = ${JSON.stringify(validModel())};
const baseUrl = 'https://queued.invalid/api/partner';
const answer = () =>
  new Response(JSON.stringify({ success: true, message: 'E-way bill 123456789012 generated' }), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });

${HEAP_NODES_SOURCE}

/** The async function objects on the heap after full collections: one per suspended async function. */
async function suspendedFrames() {
  let count = 0;
  await heapNodes((kind, name) => {
    if (kind === 'object' && name === 'Generator') count++;
  });
  return count;
}

// The send path loaded (ky, the preflight, the exchange) before the first count.
const warm = new ServiceClient({ apiKey: 'sk_queued_warm_0123456789', baseUrl, fetch: async () => answer(), rateLimiter: { acquire: async () => undefined } });
await warm.createEwayBill('warm', model);

// A limiter that grants nothing while the heap is counted: every call stays queued for its slot.
const grants = [];
const rateLimiter = { acquire: () => new Promise((grant) => grants.push(grant)) };
const client = new ServiceClient({ apiKey: 'sk_queued_key_0123456789', baseUrl, fetch: async () => answer(), rateLimiter });
const before = await suspendedFrames();
const calls = [];
for (let i = 0; i < ${QUEUED}; i++) calls.push(client.createEwayBill('doc-' + i, model));
for (let i = 0; i < 200 && grants.length < ${QUEUED}; i++) await new Promise((resolve) => setImmediate(resolve));
const queued = grants.length;
const after = await suspendedFrames();
// Then each is granted and must succeed.
for (const grant of grants) grant(() => {});
const results = await Promise.all(calls);
process.stdout.write(JSON.stringify({ queued, frames: after - before, succeeded: results.filter((r) => r.success).length }) + '\\n');
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
});
