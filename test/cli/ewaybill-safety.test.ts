// Issue 17, finding 9: the CLI never forgets what it sent. Real child processes of the built CLI against a loopback
// stand-in that counts bills per document; the run files cut at every byte.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readEarlierResults } from '../../src/cli/jsonl.js';
import { takeLock } from '../../src/cli/run-files.js';
import { readOldLedger } from '../../src/cli/sent-ledger.js';
import { validModel } from '../helpers/model.js';
import { type BillServer, startBillServer } from '../workflow/bill-server.js';
import { buildCli, runCli } from './cli-process.js';

const KEY = 'sk_live_safety_word_lantern';

let cli: Awaited<ReturnType<typeof buildCli>>;
let dir: string;
let n = 0;
beforeAll(async () => {
  cli = await buildCli();
  dir = mkdtempSync(join(process.cwd(), '.tmp', 'ewaybill-safety-'));
}, 60_000);
afterAll(() => {
  cli?.remove();
  rmSync(dir, { recursive: true, force: true });
});

let server: BillServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const bill = (docHashId: string) => JSON.stringify({ docHashId, model: validModel() });
const docs = (count: number) => Array.from({ length: count }, (_, i) => `doc_${i + 1}`);

function files(ids: readonly string[]) {
  n += 1;
  const input = join(dir, `bills-${n}.jsonl`);
  const output = join(dir, `results-${n}.jsonl`);
  writeFileSync(input, `${ids.map(bill).join('\n')}\n`);
  const results = () =>
    readFileSync(output, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  return { input, output, results };
}

const create = (input: string, output: string, env: Record<string, string> = {}, extra: readonly string[] = []) =>
  runCli(cli.file, ['ewaybill', 'create', '--input', input, '--output', output, '--progress', 'lines', ...extra], {
    SERVICE_API_KEY: KEY,
    SERVICE_BASE_URL: (server as BillServer).baseUrl,
    ...env,
  });

describe('ewaybill create keeps track of what it sent', () => {
  it('Ctrl+C: documents never sent are counted as not sent, not failed, and get no result line', async () => {
    server = await startBillServer({ keys: [KEY], documents: docs(20), slowMs: 400 });
    for (const id of docs(20)) server.script(id, 'generate-then-slow');
    const { input, output, results } = files(docs(20));
    const run = create(input, output);
    await server.waitForPosts(2, 15_000);
    run.child.kill('SIGINT');
    expect(await run.exit(15_000)).toBe(130);
    const sent = server.posts.length;
    expect(run.stdout()).toMatch(/(\d+) not sent/);
    const notSent = Number(/(\d+) not sent/.exec(run.stdout())?.[1]);
    expect(notSent).toBeGreaterThanOrEqual(20 - sent - 1);
    expect(run.stdout()).not.toMatch(/FAILED 20/);
    expect(run.stdout()).toMatch(/Run the same command again to continue/);
    expect(results().length).toBeLessThanOrEqual(sent);
  }, 60_000);

  it('a 604 on a document an earlier run sent is done, even after a later run failed and lost its lines', async () => {
    server = await startBillServer({ keys: [KEY], documents: ['doc_1', 'doc_2'] });
    server.script('doc_1', 'generate-then-drop');
    server.script('doc_1', 'drop');
    const { input, output, results } = files(['doc_1', 'doc_2']);
    // First run: doc_1's bill is made and both answers are lost; it ends "may have succeeded". A short --timeout:
    // the third run waits out its in-flight window (the timeout + 5 s) before it sends doc_1 again.
    const first = create(input, output, {}, ['--timeout', '3']);
    await first.exit(30_000);
    // A later run against a service that is down, then the results file loses everything.
    const down = create(input, output, { SERVICE_BASE_URL: 'http://127.0.0.1:9/api/partner' });
    expect(await down.exit(30_000)).not.toBe(0);
    writeFileSync(output, '');
    const third = create(input, output);
    expect(await third.exit(30_000)).toBe(0);
    const lastOf = (id: string) =>
      results()
        .filter((r) => r.docHashId === id)
        .at(-1);
    expect(lastOf('doc_1')).toMatchObject({ ok: true, outcome: 'already-generated' });
    expect(server.generated.get('doc_1')).toBe(1);
  }, 90_000);

  it('a second run on the same files at once is refused, naming the first, before sending anything', async () => {
    // The first run's first answer takes two minutes: it sends nothing more while the second run lives, however long
    // a loaded machine takes to start it, so every POST after the first would be the second run's.
    server = await startBillServer({ keys: [KEY], documents: docs(4), slowMs: 120_000 });
    for (const id of docs(4)) server.script(id, 'generate-then-slow');
    const { input, output } = files(docs(4));
    const first = create(input, output);
    await server.waitForPosts(1, 15_000);
    const second = create(input, output);
    expect(await second.exit(15_000)).toBe(2);
    expect(second.stderr()).toMatch(new RegExp(`another run \\(pid ${first.child.pid}`));
    expect(server.posts.map((post) => post.docHashId)).toEqual(['doc_1']);
    first.child.kill('SIGINT');
    await first.exit(15_000);
  }, 60_000);

  it('a lock left by a killed run is taken over', () => {
    const output = join(dir, 'stale.jsonl');
    writeFileSync(`${output}.lock`, JSON.stringify({ pid: 2 ** 22 + 7, host: hostname() }));
    const lock = takeLock(output);
    expect('release' in lock).toBe(true);
    if ('release' in lock) lock.release();
  });

  it('refuses to resume a results file of another service or key, sending nothing', async () => {
    server = await startBillServer({ keys: [KEY, 'sk_prod_other_word'], documents: docs(2) });
    const { input, output } = files(docs(2));
    expect(await create(input, output).exit(30_000)).toBe(0);
    const posts = server.posts.length;
    const other = create(input, output, { SERVICE_API_KEY: 'sk_prod_other_word' });
    expect(await other.exit(15_000)).toBe(2);
    expect(other.stderr()).toMatch(/holds results done at .* with the key [0-9a-f]{12}; this run is at/);
    expect(other.stderr()).not.toContain('sk_prod_other_word');
    expect(server.posts.length).toBe(posts);
  }, 60_000);

  it('never writes the key, even when the service echoes it in a success message', async () => {
    server = await startBillServer({ keys: [KEY], documents: ['doc_1'] });
    const { input, output } = files(['doc_1']);
    // The bill server's success message names the document; make the document id carry the key as the echo.
    writeFileSync(input, `${JSON.stringify({ docHashId: 'doc_1', model: validModel() })}\n`);
    expect(await create(input, output).exit(30_000)).toBe(0);
    expect(readFileSync(output, 'utf8')).not.toContain(KEY);
  }, 30_000);

  it('a refused key stops the run with what to do, after one request', async () => {
    server = await startBillServer({ keys: ['sk_the_current_key'], documents: docs(6) });
    const { input, output } = files(docs(6));
    const run = create(input, output);
    expect(await run.exit(30_000)).toBe(1);
    expect(server.posts).toHaveLength(1);
    expect(run.stderr()).toMatch(/refused the API key \(UNAUTHORIZED\).*Set SERVICE_API_KEY/);
    expect(run.stdout()).toMatch(/1 failed, 5 not sent/);
    expect(run.stderr() + run.stdout()).not.toContain(KEY);
  }, 30_000);
});

describe('the run files survive a crash at any byte', () => {
  it("an old version's ledger of sent documents (read only now), cut at every byte, names only whole lines", () => {
    const output = join(dir, 'cut.jsonl');
    const scope = { baseUrl: 'https://sandbox.example/api/partner', key: '0123456789ab' };
    // As the ledger's writer wrote it before the journal replaced it: a newline, the record, a newline; and a bare id
    // of 0.2.0, which named no service.
    const records = ['doc_a', 'doc_b', 'doc_c'].map((id) => `\n${JSON.stringify({ docHashId: id, ...scope })}\n`);
    const whole = Buffer.from(`${records[0]}"doc_old"\n${records[1]}${records[2]}`);
    for (let cut = 0; cut <= whole.length; cut++) {
      writeFileSync(`${output}.sent`, whole.subarray(0, cut));
      const read = readOldLedger(output, scope);
      const named = ['doc_a', 'doc_b', 'doc_c'].filter((id) => read.has(id));
      const text = whole.subarray(0, cut).toString();
      // A line counts once its record is whole (the newline may be the part cut off).
      const expected = ['doc_a', 'doc_b', 'doc_c'].filter((id) =>
        text.includes(JSON.stringify({ docHashId: id, ...scope })),
      );
      expect(named, `cut at byte ${cut}`).toEqual(expected);
      expect([...read.unscoped], `cut at byte ${cut}`).toEqual(text.includes('"doc_old"') ? ['doc_old'] : []);
      expect(read.elsewhere.size).toBe(0);
    }
    // Reading never writes it.
    expect(readFileSync(`${output}.sent`)).toEqual(whole);
  });

  it('the results file, cut at every byte, reads as the whole lines before the cut', async () => {
    const output = join(dir, 'cut-results.jsonl');
    const lines = [
      { docHashId: 'a', ok: true },
      { docHashId: 'b', ok: false, mayHaveSucceeded: true },
      { docHashId: 'c', ok: true },
    ];
    const whole = Buffer.from(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    for (let cut = 0; cut <= whole.length; cut++) {
      writeFileSync(output, whole.subarray(0, cut));
      const earlier = await readEarlierResults(output);
      // A line whose JSON is whole counts, with or without its newline; a torn one is skipped.
      const parsed = whole
        .subarray(0, cut)
        .toString()
        .split('\n')
        .flatMap((l) => {
          try {
            return [JSON.parse(l)];
          } catch {
            return [];
          }
        });
      const done = parsed.filter((l) => l.ok).map((l) => l.docHashId);
      expect([...earlier.done], `cut at byte ${cut}`).toEqual(done);
    }
  });
});
