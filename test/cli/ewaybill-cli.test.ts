import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { validModel } from '../helpers/model.js';
import { type BillServer, startBillServer } from '../workflow/bill-server.js';
import { buildCli, readRunJournal, runCli } from './cli-process.js';

const KEY = 'sk_live_cli_batch_7a6b5c4d3e2f';

let cli: Awaited<ReturnType<typeof buildCli>>;
let dir: string;
let n = 0;
beforeAll(async () => {
  cli = await buildCli();
  dir = mkdtempSync(join(process.cwd(), '.tmp', 'ewaybill-cli-'));
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

function files(lines: readonly string[]) {
  n += 1;
  const input = join(dir, `bills-${n}.jsonl`);
  const output = join(dir, `results-${n}.jsonl`);
  writeFileSync(input, `${lines.join('\n')}\n`);
  return {
    input,
    output,
    results: () =>
      readFileSync(output, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
  };
}

const bill = (docHashId: string) => JSON.stringify({ docHashId, model: validModel() });

function create(server: BillServer, input: string, output: string, extra: string[] = []) {
  return runCli(cli.file, ['ewaybill', 'create', '--input', input, '--output', output, ...extra], {
    SERVICE_API_KEY: KEY,
    SERVICE_BASE_URL: server.baseUrl,
  });
}

describe('invoicing-service-sdk ewaybill create', () => {
  it('writes a result line per document, bad lines included, and a rerun skips what is done', async () => {
    server = await startBillServer({ keys: [KEY], documents: ['doc_1', 'doc_2', 'doc_3'] });
    const { input, output, results } = files([
      bill('doc_1'),
      '{"docHashId": "doc_2", "model": ',
      '',
      JSON.stringify({ doc_hash_id: 'doc_2', model: validModel() }),
      JSON.stringify({ docHashId: 'doc_3' }),
      bill('doc_1'),
      bill('doc_unknown'),
      JSON.stringify({ docHashId: 'doc_bad', model: { ...validModel(), transport_mode: 'Teleport' } }),
    ]);
    const first = create(server, input, output);
    expect(await first.exit(30_000)).toBe(1);
    const byLine = new Map(results().map((r) => [r.line, r]));
    expect(byLine.get(1)).toMatchObject({ docHashId: 'doc_1', ok: true, outcome: 'generated' });
    expect(byLine.get(2)).toMatchObject({ ok: false, code: 'INVALID_JSON' });
    expect(byLine.get(2).error).toMatch(/^line 2 is not valid JSON: /);
    expect(byLine.get(4)).toMatchObject({ docHashId: 'doc_2', ok: true });
    expect(byLine.get(5)).toMatchObject({ docHashId: 'doc_3', ok: false, code: 'INVALID_LINE' });
    expect(byLine.get(5).error).toMatch(/line 5 has no model/);
    expect(byLine.get(6)).toMatchObject({ docHashId: 'doc_1', ok: false, code: 'DUPLICATE' });
    expect(byLine.get(7)).toMatchObject({ docHashId: 'doc_unknown', ok: false, code: 'INVALID_HASH_ID', status: 400 });
    expect(byLine.get(8)).toMatchObject({ docHashId: 'doc_bad', ok: false, code: 'VALIDATION_ERROR' });
    expect(byLine.get(8).issues[0].field).toBe('transport_mode');
    expect(byLine.size).toBe(7);
    // Not a TTY: plain progress lines, with an ETA while documents remain.
    expect(first.stderr()).toMatch(/^1\/4 doc_1 generated \(ETA \d+s\)$/m);
    expect(first.stderr()).toMatch(/^4\/4 doc_\w+ /m);
    expect(first.stdout()).toMatch(/Done: 2 generated, 5 failed, 0 not sent, 0 skipped as already done/);
    expect(server.posts.map((p) => p.docHashId)).toEqual(['doc_1', 'doc_2', 'doc_unknown']);

    const second = create(server, input, output);
    expect(await second.exit(30_000)).toBe(1);
    expect(second.stdout()).toMatch(/Done: 0 generated, 4 failed, 0 not sent, 3 skipped as already done/);
    // doc_1 (lines 1 and 6) and doc_2 are skipped. The service refused doc_unknown for good (INVALID_HASH_ID) and the
    // journal recorded it: the same body is refused again with that error, without a request (NIC counts errors).
    expect(server.posts.map((p) => p.docHashId)).toEqual(['doc_1', 'doc_2', 'doc_unknown']);
    const again = results().filter((r) => r.docHashId === 'doc_unknown');
    expect(again.map((r) => [r.ok, r.code, r.status, r.mayHaveSucceeded])).toEqual([
      [false, 'INVALID_HASH_ID', 400, false],
      [false, 'INVALID_HASH_ID', 400, false],
    ]);
    for (const text of [
      first.stdout(),
      first.stderr(),
      second.stdout(),
      second.stderr(),
      readFileSync(output, 'utf8'),
    ]) {
      expect(text).not.toContain(KEY);
    }
  }, 40_000);

  it('stops on SIGINT without sending more, and the next run finishes, taking the 604 of the cut request as done', async () => {
    server = await startBillServer({ keys: [KEY], documents: ['doc_1', 'doc_2', 'doc_3', 'doc_4'] });
    server.script('doc_2', 'generate-then-hang');
    const { input, output, results } = files(['doc_1', 'doc_2', 'doc_3', 'doc_4'].map(bill));
    // A short --timeout: the next run waits out the cut request's in-flight window (the timeout + 5 s) before it
    // sends doc_2 again, so that a request still at the service never makes a second bill.
    const first = create(server, input, output, ['--timeout', '3']);
    await server.waitForPosts(2, 15_000);
    first.child.kill('SIGINT');
    expect(await first.exit(15_000)).toBe(130);
    expect(first.stdout()).toMatch(/Stopped: 1 generated, .*Run the same command again to continue/);
    expect(results().map((r) => [r.docHashId, r.ok, r.code, r.mayHaveSucceeded])).toEqual([
      ['doc_1', true, undefined, undefined],
      ['doc_2', false, 'ABORTED_AFTER_SEND', true],
    ]);
    expect(server.posts.map((p) => p.docHashId)).toEqual(['doc_1', 'doc_2']);

    const second = create(server, input, output);
    expect(await second.exit(30_000)).toBe(0);
    expect(second.stderr()).toMatch(/1 document\(s\) an earlier run sent may still be at the service/);
    const last = results().slice(2);
    expect(last.map((r) => [r.docHashId, r.ok, r.outcome])).toEqual([
      ['doc_2', true, 'already-generated'],
      ['doc_3', true, 'generated'],
      ['doc_4', true, 'generated'],
    ]);
    expect(server.posts.map((p) => p.docHashId)).toEqual(['doc_1', 'doc_2', 'doc_2', 'doc_3', 'doc_4']);
    expect([...server.generated.values()]).toEqual([1, 1, 1, 1]);
  }, 60_000);

  it('after a kill -9 mid-request, the next run takes the 604 of the cut document as done', async () => {
    server = await startBillServer({ keys: [KEY], documents: ['doc_1', 'doc_2', 'doc_3'] });
    server.script('doc_2', 'generate-then-hang');
    const { input, output, results } = files(['doc_1', 'doc_2', 'doc_3'].map(bill));
    const first = create(server, input, output, ['--timeout', '3']);
    await server.waitForPosts(2, 15_000);
    first.child.kill('SIGKILL');
    expect(await first.exit(15_000)).toBe('SIGKILL');
    expect(results().map((r) => [r.docHashId, r.ok])).toEqual([['doc_1', true]]);
    // The journal knows doc_1's bill and that doc_2 may have been sent (recorded and synced before it left).
    const { records, pending } = await readRunJournal(output, server.baseUrl, ['doc_1', 'doc_2', 'doc_3']);
    expect([...records.values()].map((r) => r?.status)).toEqual(['generated', 'sent-maybe', undefined]);
    expect(pending.map((r) => r.docHashId)).toEqual(['doc_2']);

    const second = create(server, input, output);
    expect(await second.exit(30_000)).toBe(0);
    expect(results().map((r) => [r.docHashId, r.ok, r.outcome])).toEqual([
      ['doc_1', true, 'generated'],
      ['doc_2', true, 'already-generated'],
      ['doc_3', true, 'generated'],
    ]);
    expect(existsSync(`${output}.inflight`)).toBe(false);
    expect(existsSync(`${output}.sent`)).toBe(false);
    expect(server.posts.map((p) => p.docHashId)).toEqual(['doc_1', 'doc_2', 'doc_2', 'doc_3']);
    expect((await readRunJournal(output, server.baseUrl, [])).pending).toEqual([]);
  }, 60_000);

  it('a document edited after a cut request: its bill, made from the body sent, is reported as bodyChanged', async () => {
    server = await startBillServer({ keys: [KEY], documents: ['doc_1'] });
    server.script('doc_1', 'generate-then-hang');
    const { input, output, results } = files([bill('doc_1')]);
    const first = create(server, input, output, ['--timeout', '3']);
    await server.waitForPosts(1, 15_000);
    first.child.kill('SIGKILL');
    expect(await first.exit(15_000)).toBe('SIGKILL');
    // The document is edited before the next run: its bill (made by the cut request) holds the earlier vehicle.
    writeFileSync(
      input,
      `${JSON.stringify({ docHashId: 'doc_1', model: validModel({ vehicle_number: 'KA01CD5678' }) })}\n`,
    );
    const second = create(server, input, output, ['--progress', 'lines']);
    expect(await second.exit(30_000)).toBe(0);
    expect(results().map((r) => [r.docHashId, r.ok, r.outcome, r.bodyChanged])).toEqual([
      ['doc_1', true, 'already-generated', true],
    ]);
    expect(second.stderr()).toMatch(
      /doc_1 already-generated \(recovered\) from the body an earlier run sent, before the document was edited/,
    );
    // The earlier body was sent again (answered 604), not the edited one: one bill, of the body it was made from.
    expect(server.posts.map((p) => (p.body as { vehicle_number?: string }).vehicle_number)).toEqual([
      validModel().vehicle_number,
      validModel().vehicle_number,
    ]);
    expect(server.generated.get('doc_1')).toBe(1);
  }, 60_000);

  it('draws a progress bar with an ETA when asked (as on a terminal)', async () => {
    server = await startBillServer({ keys: [KEY], documents: ['doc_1', 'doc_2'] });
    const { input, output } = files(['doc_1', 'doc_2'].map(bill));
    const run = create(server, input, output, ['--progress', 'bar']);
    expect(await run.exit(30_000)).toBe(0);
    expect(run.stderr()).toContain('\r\x1b[2K[........................] 0/2  ETA 2s');
    expect(run.stderr()).toContain('[############............] 1/2  ETA 1s');
    expect(run.stderr()).toContain('[########################] 2/2');
  }, 30_000);

  it('records preflight warnings on the line of the document they are about', async () => {
    server = await startBillServer({ keys: [KEY], documents: ['doc_1', 'doc_2'] });
    const odd = { ...validModel(), vehicle_number: 'MH 12 AB 1234' };
    const { input, output, results } = files([bill('doc_1'), JSON.stringify({ docHashId: 'doc_2', model: odd })]);
    const run = create(server, input, output);
    expect(await run.exit(30_000)).toBe(0);
    const [one, two] = results();
    expect(one.warnings).toBeUndefined();
    expect(two.warnings?.[0]?.field).toBe('vehicle_number');
  }, 30_000);

  it.each([
    // Issue 18.7: the CLI has no apiKey option; it names the environment variable and never asks for the key as an argument.
    [
      { SERVICE_API_KEY: '' },
      /needs the company's API key in the SERVICE_API_KEY environment variable \(never on the command line/,
    ],
    [{ SERVICE_BASE_URL: '' }, /needs the service's base URL.* in the SERVICE_BASE_URL environment variable/],
  ])('exits 2 with the reason when the environment lacks %j', async (env, message) => {
    const { input, output } = files([bill('doc_1')]);
    const run = runCli(cli.file, ['ewaybill', 'create', '--input', input, '--output', output], {
      SERVICE_API_KEY: KEY,
      SERVICE_BASE_URL: 'http://127.0.0.1:9/api/partner',
      ...env,
    });
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toMatch(message);
    expect(run.stderr()).not.toContain(KEY);
  });

  it.each([
    [['ewaybill', 'create', '--input', 'x.jsonl'], /needs --input <bills.jsonl> and --output/],
    [['ewaybill', 'send'], /Unknown command 'ewaybill send'/],
    [
      ['ewaybill', 'create', '-i', 'a', '-o', 'b', '--progress', 'fancy'],
      /--progress must be auto, bar, lines or none/,
    ],
  ])('exits 2 for %j', async (args, message) => {
    const run = runCli(cli.file, args);
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toMatch(message);
  });

  it('exits 2 when the input file cannot be read', async () => {
    const run = runCli(cli.file, ['ewaybill', 'create', '-i', join(dir, 'missing.jsonl'), '-o', join(dir, 'o.jsonl')], {
      SERVICE_API_KEY: KEY,
      SERVICE_BASE_URL: 'http://127.0.0.1:9/api/partner',
    });
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toMatch(/ENOENT/);
  });
});
