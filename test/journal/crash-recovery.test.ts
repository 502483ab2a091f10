// Issue 31's "done when", with the file journal and the wiring plan around a real ServiceClient (test/journal/
// e2e-child.ts): a process creating e-way bills for 200 documents is killed with kill -9 at random moments, 30 times,
// against a stand-in that counts bills like the portal (it checks for a bill on arrival and commits it when its
// processing ends, so two requests of one document processed at once make two bills; some answers are slow, some are
// lost after the bill is made, some documents are refused). After each kill a new process recovers, then goes on.
// Then the same with four processes (ioredis 5, 6, node-redis 4, 5) sharing one redis-server journal.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileJournal, type Journal } from 'invoicing-service-sdk/journal';
import { createRedisJournal } from 'invoicing-service-sdk/redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildEntry, runCli } from '../cli/cli-process.js';
import { LIBRARIES } from '../redis/clients.js';
import { startRedis, type TestRedis } from '../redis/redis-server.js';
import { type BillServer, startBillServer } from '../workflow/bill-server.js';

const KEY = 'sk_journal_crash_recovery';
const COUNT = 200;
const ids = Array.from({ length: COUNT }, (_, i) => `doc-${i}`);
let child: Awaited<ReturnType<typeof buildEntry>>;
let redis: TestRedis;
const servers: BillServer[] = [];
let dir: string;

beforeAll(async () => {
  [child, redis] = await Promise.all([buildEntry('journal-e2e-child', 'test/journal/e2e-child.ts'), startRedis()]);
  dir = mkdtempSync(join(tmpdir(), 'journal-e2e-'));
}, 300_000);
afterAll(async () => {
  child?.remove();
  await Promise.all(servers.map((server) => server.close()));
  await redis?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The stand-in, with its faults: lost answers, answers slower than the client's timeout, refusals. */
async function billServer(): Promise<BillServer> {
  // Slow answers take 300 ms, longer than the client's 200 ms timeout: the service is still working when it gives up.
  const server = await startBillServer({ keys: [KEY], documents: ids, slowMs: 300 });
  servers.push(server);
  for (const [i, id] of ids.entries()) {
    if (i % 20 === 0) server.script(id, 'generate-then-drop');
    if (i % 20 === 1) server.script(id, 'check-then-record-later');
    if (i % 20 === 2) server.script(id, 'generate-then-slow');
    if (i % 20 === 3) server.script(id, 'portal-214-as-502');
  }
  return server;
}

let seed = 31;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};

/** Checks the bills and the journal at the end, then that one more process answers everything from the journal. */
async function checkEnd(server: BillServer, journal: Journal, env: Record<string, string>) {
  const twice = ids.filter((id) => (server.generated.get(id) ?? 0) > 1);
  expect(twice).toEqual([]);
  let refused = 0;
  for (const [i, id] of ids.entries()) {
    const record = await journal.get({ baseUrl: server.baseUrl, docHashId: id });
    if (record?.status === 'refused') {
      // Refused once (the stand-in refuses the first request of every 20th document); once the refusal was recorded,
      // the same body was never sent again, across every process. (A process killed before it recorded the refusal
      // left the document unknown: the stand-in took the resend.)
      expect(i % 20, id).toBe(3);
      expect(server.generated.get(id) ?? 0, id).toBe(0);
      expect(server.postsOf(id), id).toBe(1);
      refused += 1;
    } else {
      expect(record?.status, id).toBe('generated');
      expect(server.generated.get(id), id).toBe(1);
    }
  }
  expect(await journal.pending()).toEqual([]);
  // A refusal is lost only to a kill between its answer and its record: the path was taken.
  expect(refused).toBeGreaterThan(0);
  // The file journal has one process at a time: this one lets go of it first.
  await journal.close();
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
}

/** Runs processes to the end (bounded): each recovers what earlier ones left unknown. */
async function runToTheEnd(envs: Record<string, string>[]) {
  for (let round = 0; round < 5; round++) {
    const runs = envs.map((env) => runCli(child.file, [], env));
    const codes = await Promise.all(runs.map((run) => run.exit(120_000)));
    expect(codes, runs.map((run) => run.stderr()).join('\n')).toEqual(envs.map(() => 0));
    const reports = runs.flatMap((run) =>
      run
        .stdout()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    );
    if (reports.every((report: { status?: string }) => report.status !== 'unknown')) return;
  }
}

function linesAfter(process_: ChildProcess, count: number): Promise<void> {
  return new Promise((resolve) => {
    // A process that has already ended prints nothing more.
    if (process_.exitCode !== null || process_.signalCode !== null) return resolve();
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
  const server = await billServer();
  const env = {
    JOURNAL_PATH: join(dir, 'bills.journal'),
    BASE_URL: server.baseUrl,
    API_KEY: KEY,
    COUNT: String(COUNT),
    TIMEOUT_MS: '200',
    MARGIN_MS: '1500',
  };
  for (let kill = 0; kill < 30; kill++) {
    const run = runCli(child.file, [], env);
    await linesAfter(run.child, 1 + Math.floor(random() * 12));
    run.child.kill('SIGKILL');
    await run.exit(60_000);
  }
  await runToTheEnd([env]);
  const journal = createFileJournal(env.JOURNAL_PATH);
  try {
    await checkEnd(server, journal, env);
  } finally {
    await journal.close();
  }
}, 600_000);

it('the same with four processes sharing one Redis journal, killed 30 times in all', async () => {
  const server = await billServer();
  const prefix = `journal-e2e-${process.pid}:`;
  const envs = ['ioredis5', 'ioredis6', 'redis4', 'redis5'].map((library) => ({
    REDIS_PORT: String(redis.port),
    LIBRARY: library,
    PREFIX: prefix,
    BASE_URL: server.baseUrl,
    API_KEY: KEY,
    COUNT: String(COUNT),
    TIMEOUT_MS: '200',
    MARGIN_MS: '1500',
  }));
  const running = envs.map((env) => runCli(child.file, [], env));
  for (let kill = 0; kill < 30; kill++) {
    const index = Math.floor(random() * running.length);
    const run = running[index] as (typeof running)[number];
    await linesAfter(run.child, 1 + Math.floor(random() * 12));
    run.child.kill('SIGKILL');
    await run.exit(60_000);
    running[index] = runCli(child.file, [], envs[index] as (typeof envs)[number]);
  }
  for (const run of running) run.child.kill('SIGKILL');
  await Promise.all(running.map((run) => run.exit(60_000)));
  await runToTheEnd(envs);
  const client = await LIBRARIES[0]?.connect(redis.port);
  try {
    const journal = createRedisJournal({ redis: client?.redis as never, prefix, logger: { warn: () => {} } });
    await checkEnd(server, journal, envs[0] as (typeof envs)[number]);
  } finally {
    await client?.close();
  }
}, 600_000);
