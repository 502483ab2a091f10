// Issue 31's "done when", with the file journal and the wiring plan around a real ServiceClient (test/journal/
// e2e-child.ts): a process creating e-way bills for 200 documents is killed with kill -9 at random moments, 30 times,
// against a stand-in that counts bills like the portal (it checks for a bill on arrival and commits it when its
// processing ends, so two requests of one document processed at once make two bills; some answers are slow, some are
// lost after the bill is made, some documents are refused). After each kill a new process recovers, then goes on.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileJournal } from 'invoicing-service-sdk/journal';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildEntry, runCli } from '../cli/cli-process.js';
import { type BillServer, startBillServer } from '../workflow/bill-server.js';

const KEY = 'sk_journal_crash_recovery';
const COUNT = 200;
const ids = Array.from({ length: COUNT }, (_, i) => `doc-${i}`);
let child: Awaited<ReturnType<typeof buildEntry>>;
let server: BillServer;
let dir: string;

beforeAll(async () => {
  [child, server] = await Promise.all([
    buildEntry('journal-e2e-child', 'test/journal/e2e-child.ts'),
    // Slow answers take 300 ms, longer than the client's 200 ms timeout: the service is still working when it gives up.
    startBillServer({ keys: [KEY], documents: ids, slowMs: 300 }),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'journal-e2e-'));
}, 120_000);
afterAll(async () => {
  child?.remove();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function linesAfter(process_: ChildProcess, count: number): Promise<void> {
  return new Promise((resolve) => {
    let lines = 0;
    const onData = (chunk: Buffer) => {
      lines += chunk.toString('utf8').split('\n').length - 1;
      if (lines >= count) done();
    };
    const done = () => {
      process_.stdout?.off('data', onData);
      process_.off('exit', done);
      resolve();
    };
    process_.stdout?.on('data', onData);
    process_.once('exit', done);
  });
}

it('kills a process 30 times: no document gets two bills, every one ends known, none failed while it has a bill', async () => {
  for (const [i, id] of ids.entries()) {
    if (i % 10 === 0) server.script(id, 'generate-then-drop');
    if (i % 10 === 1) server.script(id, 'check-then-record-later');
    if (i % 10 === 2) server.script(id, 'generate-then-slow');
    if (i % 10 === 3) server.script(id, 'portal-214-as-502');
  }
  const path = join(dir, 'bills.journal');
  const env = {
    JOURNAL_PATH: path,
    BASE_URL: server.baseUrl,
    API_KEY: KEY,
    COUNT: String(COUNT),
    TIMEOUT_MS: '200',
    MARGIN_MS: '600',
  };
  let seed = 31;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let kill = 0; kill < 30; kill++) {
    const run = runCli(child.file, [], env);
    await linesAfter(run.child, 1 + Math.floor(random() * 12));
    run.child.kill('SIGKILL');
    await run.exit(60_000);
  }
  // Then runs to the end (bounded): each recovers what the previous left unknown.
  let reports: { docHashId?: string; status?: string; done?: boolean }[] = [];
  for (let run = 0; run < 5; run++) {
    const last = runCli(child.file, [], env);
    expect(await last.exit(120_000), last.stderr()).toBe(0);
    reports = last
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    if (reports.every((report) => report.done || report.status !== 'unknown')) break;
  }
  expect(reports.at(-1)).toEqual({ done: true });

  const journal = createFileJournal(path);
  const twice = ids.filter((id) => (server.generated.get(id) ?? 0) > 1);
  expect(twice).toEqual([]);
  for (const [i, id] of ids.entries()) {
    const record = await journal.get({ baseUrl: server.baseUrl, docHashId: id });
    if (i % 10 === 3) {
      expect(record?.status, id).toBe('refused');
      expect(server.generated.get(id) ?? 0, id).toBe(0);
      // Refused once; the same body was never sent again, across 30 processes.
      expect(server.postsOf(id), id).toBe(1);
    } else {
      expect(record?.status, id).toBe('generated');
      expect(server.generated.get(id), id).toBe(1);
    }
  }
  expect(await journal.pending()).toEqual([]);
  await journal.close();

  // One more process: every document is known, answered from the journal without a request.
  const posts = server.posts.length;
  const again = runCli(child.file, [], env);
  expect(await again.exit(120_000), again.stderr()).toBe(0);
  const answers = again
    .stdout()
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(answers.filter((answer) => answer.docHashId !== undefined && answer.fromJournal !== true)).toEqual([]);
  expect(answers.filter((answer) => answer.docHashId !== undefined)).toHaveLength(COUNT);
  expect(server.posts.length).toBe(posts);
}, 600_000);
