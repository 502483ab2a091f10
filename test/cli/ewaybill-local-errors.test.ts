// ewaybill create when its own files cannot be written (a full disk, a file-size limit): the built CLI under
// `ulimit -f`, against a loopback service that numbers each bill it makes, so no bill number may go unreported. The
// limit applies to every file: the file that must fail first is made to start just under it, the other has room.

import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFileJournal } from '../../src/journal/file-journal.js';
import { journalBodyHash, journalKeyHash } from '../../src/journal/hashes.js';
import { listenOnLoopback } from '../helpers/loopback.js';
import { validModel } from '../helpers/model.js';
import { buildCli, readRunJournal, runCli } from './cli-process.js';

const KEY = 'sk_live_local_errors_quiet_harbor';

let cli: Awaited<ReturnType<typeof buildCli>>;
let dir: string;
let n = 0;
beforeAll(async () => {
  cli = await buildCli();
  dir = mkdtempSync(join(process.cwd(), '.tmp', 'ewaybill-local-errors-'));
}, 60_000);
afterAll(() => {
  cli?.remove();
  rmSync(dir, { recursive: true, force: true });
});

/** A service that answers every create with a new 12-digit bill number in its message, and counts the POSTs. */
async function startNumberingServer() {
  const posts: string[] = [];
  const answered: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const match = /^\/api\/partner\/v2\/ewaybill\/([^/]+)$/.exec(req.url ?? '');
      if (req.method !== 'POST' || !match?.[1] || req.headers.authorization !== `Bearer ${KEY}`) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"success":false}');
        return;
      }
      posts.push(decodeURIComponent(match[1]));
      const number = String(700000000000 + posts.length);
      const body = JSON.stringify({ success: true, message: `E-way bill ${number} generated for ${match[1]}` });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body, () => answered.push(number));
    });
  });
  const { port, close } = await listenOnLoopback(server);
  return { baseUrl: `http://127.0.0.1:${port}/api/partner`, posts, answered, close };
}

let server: Awaited<ReturnType<typeof startNumberingServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function files(count: number) {
  n += 1;
  const input = join(dir, `bills-${n}.jsonl`);
  const output = join(dir, `results-${n}.jsonl`);
  const ids = Array.from({ length: count }, (_, i) => `doc_${i + 1}`);
  writeFileSync(input, `${ids.map((docHashId) => JSON.stringify({ docHashId, model: validModel() })).join('\n')}\n`);
  return { input, output };
}

/** The whole JSON lines of a file: a line cut by the limit is not one. */
function wholeLines(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** The file-size limit of the runs: 64 KiB, room for the journal of far more than ten documents (~2 KB each). */
const LIMIT_BLOCKS = 64;
const LIMIT_BYTES = LIMIT_BLOCKS * 1024;

const create = (input: string, output: string) =>
  runCli(
    cli.file,
    ['ewaybill', 'create', '--input', input, '--output', output, '--progress', 'lines'],
    { SERVICE_API_KEY: KEY, SERVICE_BASE_URL: (server as { baseUrl: string }).baseUrl },
    { fileSizeBlocks: LIMIT_BLOCKS },
  );

/** Writes a journal of earlier generated documents (of this service and key) that is already past the limit. */
async function journalPastTheLimit(output: string, baseUrl: string) {
  const journal = createFileJournal(`${output}.journal`);
  const body = JSON.stringify(validModel());
  // Bounded: a few dozen documents (about 2 KB each) fill it.
  for (
    let i = 0;
    i < 1000 && (statSync(`${output}.journal`, { throwIfNoEntry: false })?.size ?? 0) <= LIMIT_BYTES;
    i++
  ) {
    const doc = { baseUrl, docHashId: `earlier_doc_${i}` };
    const owner = randomUUID();
    await journal.claim(doc, owner, 60_000);
    const { attempt } = await journal.recordIntent({
      ...doc,
      owner,
      body,
      bodyHash: journalBodyHash(body),
      keyHash: journalKeyHash(KEY),
      inFlightMs: 1000,
    });
    await journal.recordOutcome(doc, attempt, { status: 'generated', result: { outcome: 'generated', message: 'ok' } });
    await journal.release(doc, owner);
  }
  await journal.close();
}

describe('ewaybill create when its own files cannot be written', () => {
  it('a result line that cannot be written stops the run, goes to stdout, and exits 1', async () => {
    server = await startNumberingServer();
    const { input, output } = files(10);
    // Earlier runs' results (blank lines here, which readers skip) leave room for about four more lines.
    writeFileSync(output, '\n'.repeat(LIMIT_BYTES - 1000));
    const run = create(input, output);
    expect(await run.exit(60_000)).toBe(1);
    const written = wholeLines(output);
    expect(written.length).toBeGreaterThan(0);
    expect(written.length).toBeLessThan(10);
    // Every bill the service made is on a whole line of the results file or on stdout.
    const reported = written.map((line) => String(line.message)).join('\n') + run.stdout();
    expect(server.answered.length).toBeGreaterThan(written.length);
    for (const number of server.answered) expect(reported, `bill ${number}`).toContain(number);
    // Sending stopped: the lines written, the one that could not be, and at most one more already in flight.
    expect(server.posts.length).toBeLessThanOrEqual(written.length + 2);
    expect(run.stderr()).toContain(output);
    expect(run.stderr()).toMatch(/EFBIG|file too large/i);
    expect(run.stdout()).not.toMatch(/^Done:/m);
    expect(run.stderr() + run.stdout()).not.toContain(KEY);
    // The journal, which had room, knows every bill the service made: nothing sent is forgotten.
    const ids = Array.from({ length: 10 }, (_, i) => `doc_${i + 1}`);
    const { records } = await readRunJournal(output, server.baseUrl, ids);
    const known = [...records.values()].filter((record) => record?.status === 'generated');
    expect(known.map((record) => record?.result?.ewayBillNumber).sort()).toEqual([...server.answered].sort());
  }, 90_000);

  it('documents not sent because the journal cannot be written exit 1, naming the error', async () => {
    server = await startNumberingServer();
    const { input, output } = files(3);
    // A journal already past the limit: the first document's intent fails before its request could leave.
    await journalPastTheLimit(output, server.baseUrl);
    const run = create(input, output);
    expect(await run.exit(60_000)).toBe(1);
    expect(server.posts).toHaveLength(0);
    expect(run.stdout()).toMatch(/0 generated, 0 failed, 3 not sent/);
    expect(run.stderr()).toMatch(/not sent because of a local error: could not write the file journal .*EFBIG/);
    expect(run.stderr() + run.stdout()).not.toContain(KEY);
    // No result line: the next run sends them. The journal's earlier records are whole, and none of these is in it.
    expect(readFileSync(output, 'utf8')).toBe('');
    const { records } = await readRunJournal(output, server.baseUrl, ['earlier_doc_0', 'doc_1']);
    expect([...records.values()].map((record) => record?.status)).toEqual(['generated', undefined]);
  }, 60_000);
});
