// Issue 28, item 7: the record of documents that may have been sent belongs to one base URL and one key. A sandbox
// run killed with kill -9, then a production run with the same --output, used to report another party's bill as
// `already-generated`, `recovered: true`. And documents refused locally (never sent) entered it. Issue 31: that record
// is now the run's journal, `results.jsonl.journal`; the ledger of older versions, `results.jsonl.sent`, is only read.
// The built CLI as child processes, against two loopback stand-ins of the service (a sandbox and a production).
import { createHash } from 'node:crypto';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validModel } from '../helpers/model.js';
import { type BillServer, startBillServer } from '../workflow/bill-server.js';
import { readRunJournal, runCli, useBuiltCli } from './cli-process.js';

const SANDBOX_KEY = 'sk_test_sandbox_word_meadow';
const PRODUCTION_KEY = 'sk_live_production_word_quarry';
const built = useBuiltCli('ewaybill-ledger');

const servers: BillServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
async function service(keys: readonly string[], documents: readonly string[]) {
  const server = await startBillServer({ keys, documents });
  servers.push(server);
  return server;
}

let n = 0;
function files(lines: readonly unknown[]) {
  n += 1;
  const input = join(built.dir, `bills-${n}.jsonl`);
  const output = join(built.dir, `results-${n}.jsonl`);
  writeFileSync(input, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  const read = (path: string) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  return { input, output, results: () => read(output) };
}

const create = (input: string, output: string, baseUrl: string, key: string) =>
  runCli(built.cli.file, ['ewaybill', 'create', '--input', input, '--output', output, '--progress', 'lines'], {
    SERVICE_API_KEY: key,
    SERVICE_BASE_URL: baseUrl,
  });

/** The short hash of a key the CLI writes on result lines and the journal records: never the key. */
const keyHash = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 12);

const bill = (docHashId: string) => ({ docHashId, model: validModel() });

describe('the ledger of sent documents is tied to the service and the key', () => {
  it.each([
    ['another base URL (production after the sandbox)', 'production'],
    ['another key on the same service (another company)', 'same service'],
  ] as const)(
    'after a kill -9, a run with %s is refused before sending anything',
    async (_what, where) => {
      const sandbox = await service([SANDBOX_KEY, PRODUCTION_KEY], ['ACME-001', 'ACME-002']);
      sandbox.script('ACME-001', 'hang');
      const { input, output, results } = files([bill('ACME-001'), bill('ACME-002')]);
      const first = create(input, output, sandbox.baseUrl, SANDBOX_KEY);
      await sandbox.waitForPosts(1, 30_000);
      first.child.kill('SIGKILL');
      expect(await first.exit(15_000)).toBe('SIGKILL');
      // The killed run left its journal (ACME-001 may have been sent) and no result line.
      const { pending } = await readRunJournal(output, sandbox.baseUrl, []);
      expect(pending.map((record) => [record.docHashId, record.baseUrl, record.keyHash])).toEqual([
        ['ACME-001', sandbox.baseUrl, keyHash(SANDBOX_KEY)],
      ]);
      expect(results()).toEqual([]);

      // Another party's bill for ACME-001 exists at the other service (or under the other key).
      const production = where === 'production' ? await service([PRODUCTION_KEY], ['ACME-001', 'ACME-002']) : sandbox;
      production.generated.set('ACME-001', 1);
      const postsBefore = production.posts.length;
      const second = create(input, output, production.baseUrl, PRODUCTION_KEY);
      expect(await second.exit(30_000)).toBe(2);
      expect(production.posts.length).toBe(postsBefore);
      const said = second.stderr();
      expect(said).toContain(`${output}.journal records documents sent at ${sandbox.baseUrl} with the key`);
      expect(said).toContain(sandbox.baseUrl);
      expect(said).toMatch(/use another --output/);
      expect(said + second.stdout()).not.toContain(SANDBOX_KEY);
      expect(said + second.stdout()).not.toContain(PRODUCTION_KEY);
      expect(results()).toEqual([]);
    },
    90_000,
  );

  it('records the base URL and a hash of the key, never the key', async () => {
    const server = await service([SANDBOX_KEY], ['ACME-001']);
    const { input, output } = files([bill('ACME-001')]);
    expect(await create(input, output, server.baseUrl, SANDBOX_KEY).exit(30_000)).toBe(0);
    const record = (await readRunJournal(output, server.baseUrl, ['ACME-001'])).records.get('ACME-001');
    expect(record).toMatchObject({
      docHashId: 'ACME-001',
      baseUrl: server.baseUrl,
      status: 'generated',
      keyHash: expect.stringMatching(/^[0-9a-f]{12}$/),
    });
    expect(readFileSync(`${output}.journal`, 'utf8')).not.toContain(SANDBOX_KEY);
    // The same short hash as the result lines.
    expect(record?.keyHash).toBe(JSON.parse(readFileSync(output, 'utf8').split('\n')[0] as string).key);
  }, 60_000);

  it('a journal with a bill of another key at the same service is refused, even when the results file is gone', async () => {
    const server = await service([SANDBOX_KEY, PRODUCTION_KEY], ['ACME-001']);
    const { input, output } = files([bill('ACME-001')]);
    expect(await create(input, output, server.baseUrl, SANDBOX_KEY).exit(30_000)).toBe(0);
    // Without the results file, only the journal says ACME-001's bill is the sandbox key's: it must not answer for
    // the other company's run.
    writeFileSync(output, '');
    const postsBefore = server.posts.length;
    const other = create(input, output, server.baseUrl, PRODUCTION_KEY);
    expect(await other.exit(30_000)).toBe(2);
    expect(other.stderr()).toContain(
      `${output}.journal records documents sent at ${server.baseUrl} with the key ${keyHash(SANDBOX_KEY)}`,
    );
    expect(server.posts.length).toBe(postsBefore);
    expect(readFileSync(output, 'utf8')).toBe('');
  }, 60_000);

  it('documents refused locally (the model, a strict preflight) never enter the ledger', async () => {
    const server = await service([SANDBOX_KEY], ['ACME-001', 'ACME-002', 'ACME-003']);
    const { input, output, results } = files([
      { docHashId: 'ACME-001', model: { ...validModel(), supply_type: 'Sideways' } },
      bill('ACME-002'),
      { docHashId: 'ACME-003', model: validModel({ vehicle_number: '??' }) },
    ]);
    const run = runCli(
      built.cli.file,
      ['ewaybill', 'create', '--input', input, '--output', output, '--progress', 'lines', '--preflight', 'strict'],
      { SERVICE_API_KEY: SANDBOX_KEY, SERVICE_BASE_URL: server.baseUrl },
    );
    expect(await run.exit(30_000)).toBe(1);
    expect(server.posts.map((post) => post.docHashId)).toEqual(['ACME-002']);
    expect(results().map((line) => [line.docHashId, line.ok, line.mayHaveSucceeded])).toEqual([
      ['ACME-001', false, false],
      ['ACME-002', true, undefined],
      ['ACME-003', false, false],
    ]);
    const { records } = await readRunJournal(output, server.baseUrl, ['ACME-001', 'ACME-002', 'ACME-003']);
    expect([...records.values()].map((record) => record?.status)).toEqual([undefined, 'generated', undefined]);
  }, 60_000);

  it("an older version's ledger lines (no service named) count only where the results file shows this service", async () => {
    const production = await service([PRODUCTION_KEY], ['ACME-001', 'ACME-002']);
    production.generated.set('ACME-001', 1);
    const { input, output, results } = files([bill('ACME-001'), bill('ACME-002')]);
    writeFileSync(`${output}.sent`, '\n"ACME-001"\n');
    const run = create(input, output, production.baseUrl, PRODUCTION_KEY);
    expect(await run.exit(30_000)).toBe(1);
    expect(run.stderr()).toMatch(/1 document\(s\) in .*\.sent were recorded by an older version/);
    // Not taken for this run's own bill: the 604 is reported as it is.
    expect(results().map((line) => [line.docHashId, line.ok, line.errorCode])).toEqual([
      ['ACME-001', false, 'PORTAL_ERROR_604'],
      ['ACME-002', true, undefined],
    ]);
  }, 60_000);

  it("an older version's ledger (.sent, 0.1's .inflight) is read, never written: its documents' 604 is their bill", async () => {
    const server = await service([PRODUCTION_KEY], ['ACME-001', 'ACME-002', 'ACME-003', 'ACME-004']);
    // The old run made the bills of ACME-001 and ACME-003 and was killed before writing their result lines; its
    // request for ACME-002 never reached the service.
    server.generated.set('ACME-001', 1);
    server.generated.set('ACME-003', 1);
    const { input, output, results } = files(['ACME-001', 'ACME-002', 'ACME-003', 'ACME-004'].map(bill));
    const here = { baseUrl: server.baseUrl, key: keyHash(PRODUCTION_KEY) };
    // 0.2.0's results line (it names the service) and ledger (bare ids), a ledger record that names the service, and
    // 0.1's in-flight list.
    writeFileSync(output, `${JSON.stringify({ line: 9, docHashId: 'ACME-000', ok: true, ...here })}\n`);
    const sent = `"ACME-001"\n\n${JSON.stringify({ docHashId: 'ACME-002', ...here })}\n`;
    writeFileSync(`${output}.sent`, sent);
    writeFileSync(`${output}.inflight`, '["ACME-003"]');
    // Written an hour ago: none of those requests can still be in flight.
    const anHourAgo = new Date(Date.now() - 3_600_000);
    for (const end of ['sent', 'inflight']) utimesSync(`${output}.${end}`, anHourAgo, anHourAgo);
    const run = create(input, output, server.baseUrl, PRODUCTION_KEY);
    expect(await run.exit(30_000)).toBe(0);
    expect(results().map((line) => [line.docHashId, line.ok, line.outcome])).toEqual([
      ['ACME-000', true, undefined],
      ['ACME-001', true, 'already-generated'],
      ['ACME-002', true, 'generated'],
      ['ACME-003', true, 'already-generated'],
      ['ACME-004', true, 'generated'],
    ]);
    // One request each and one bill each: nothing the old version sent was taken for a new document.
    expect(server.posts.map((post) => post.docHashId)).toEqual(['ACME-001', 'ACME-002', 'ACME-003', 'ACME-004']);
    expect([...server.generated.values()]).toEqual([1, 1, 1, 1]);
    expect(run.stderr()).not.toMatch(/recorded by an older version/);
    // Read only: the old files are as they were; what this run sent is in its journal.
    expect(readFileSync(`${output}.sent`, 'utf8')).toBe(sent);
    expect(readFileSync(`${output}.inflight`, 'utf8')).toBe('["ACME-003"]');
    // The bills the old version made (their 604s) are the journal's too: a later call answers them without a request.
    const { records, pending } = await readRunJournal(output, server.baseUrl, [
      'ACME-001',
      'ACME-002',
      'ACME-003',
      'ACME-004',
    ]);
    expect([...records.values()].map((record) => [record?.status, record?.result?.outcome])).toEqual([
      ['generated', 'already-generated'],
      ['generated', 'generated'],
      ['generated', 'already-generated'],
      ['generated', 'generated'],
    ]);
    expect(pending).toEqual([]);
  }, 60_000);

  it("a document an older version's ledger names is not sent while its request may still be in flight", async () => {
    const server = await service([PRODUCTION_KEY], ['ACME-001', 'ACME-002']);
    const { input, output } = files([bill('ACME-001'), bill('ACME-002')]);
    // Written just now (the old version's timeout was 30 s): its request may still be at the service.
    writeFileSync(
      `${output}.sent`,
      `${JSON.stringify({ docHashId: 'ACME-001', baseUrl: server.baseUrl, key: keyHash(PRODUCTION_KEY) })}\n`,
    );
    const run = create(input, output, server.baseUrl, PRODUCTION_KEY);
    await run.waitForStderr(
      /1 document\(s\) recorded as sent by an older version may still be at the service: waiting \d+ s/,
      30_000,
    );
    run.child.kill('SIGINT');
    expect(await run.exit(30_000)).toBe(130);
    expect(server.posts).toEqual([]);
    expect(run.stdout()).toMatch(/Stopped: 0 generated, 0 failed, 2 not sent/);
  }, 60_000);
});
