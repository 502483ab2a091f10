// Issue 28, item 7: `results.jsonl.sent` (the ledger of documents that may have been sent) belongs to one base URL and
// one key. A sandbox run killed with kill -9, then a production run with the same --output, used to report another
// party's bill as `already-generated`, `recovered: true`. And documents refused locally (never sent) entered it.
// The built CLI as child processes, against two loopback stand-ins of the service (a sandbox and a production).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validModel } from '../helpers/model.js';
import { type BillServer, startBillServer } from '../workflow/bill-server.js';
import { runCli, useBuiltCli } from './cli-process.js';

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
  return { input, output, results: () => read(output), ledger: () => read(`${output}.sent`) };
}

const create = (input: string, output: string, baseUrl: string, key: string) =>
  runCli(built.cli.file, ['ewaybill', 'create', '--input', input, '--output', output, '--progress', 'lines'], {
    SERVICE_API_KEY: key,
    SERVICE_BASE_URL: baseUrl,
  });

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
      const { input, output, results, ledger } = files([bill('ACME-001'), bill('ACME-002')]);
      const first = create(input, output, sandbox.baseUrl, SANDBOX_KEY);
      await sandbox.waitForPosts(1, 30_000);
      first.child.kill('SIGKILL');
      expect(await first.exit(15_000)).toBe('SIGKILL');
      // The killed run left its ledger and no result line.
      expect(ledger().map((record) => record.docHashId ?? record)).toEqual(['ACME-001']);
      expect(results()).toEqual([]);

      // Another party's bill for ACME-001 exists at the other service (or under the other key).
      const production = where === 'production' ? await service([PRODUCTION_KEY], ['ACME-001', 'ACME-002']) : sandbox;
      production.generated.set('ACME-001', 1);
      const postsBefore = production.posts.length;
      const second = create(input, output, production.baseUrl, PRODUCTION_KEY);
      expect(await second.exit(30_000)).toBe(2);
      expect(production.posts.length).toBe(postsBefore);
      const said = second.stderr();
      expect(said).toContain(`${output}.sent`);
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
    const { input, output, ledger } = files([bill('ACME-001')]);
    expect(await create(input, output, server.baseUrl, SANDBOX_KEY).exit(30_000)).toBe(0);
    const [record] = ledger();
    expect(record).toEqual({
      docHashId: 'ACME-001',
      baseUrl: server.baseUrl,
      key: expect.stringMatching(/^[0-9a-f]{12}$/),
    });
    expect(readFileSync(`${output}.sent`, 'utf8')).not.toContain(SANDBOX_KEY);
    // The same short hash as the result lines.
    expect(record.key).toBe(JSON.parse(readFileSync(output, 'utf8').split('\n')[0] as string).key);
  }, 60_000);

  it('documents refused locally (the model, a strict preflight) never enter the ledger', async () => {
    const server = await service([SANDBOX_KEY], ['ACME-001', 'ACME-002', 'ACME-003']);
    const { input, output, results, ledger } = files([
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
    expect(ledger().map((record) => record.docHashId)).toEqual(['ACME-002']);
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
});
