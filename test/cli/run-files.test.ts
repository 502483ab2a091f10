// The lock of `ewaybill create` (src/cli/run-files.ts), in real processes: eight of them racing for a lock left by a
// dead run. (The ledger these tests also appended to under a file-size limit is gone: the run's journal,
// src/journal/file-journal.ts, records what is sent, and test/journal/file-crash.test.ts cuts it.)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeLock } from '../../src/cli/run-files.js';
import { buildEntry } from './cli-process.js';

let built: Awaited<ReturnType<typeof buildEntry>>;
let dir: string;
beforeAll(async () => {
  built = await buildEntry('run-files', 'src/cli/run-files.ts');
  dir = mkdtempSync(join(process.cwd(), '.tmp', 'run-files-'));
}, 60_000);
afterAll(() => {
  built?.remove();
  rmSync(dir, { recursive: true, force: true });
});

/** Above Linux's largest pid (2^22): no process has it. */
const DEAD_PID = 2 ** 22 + 7;

/** Runs `script` as an ES module in a child Node (optionally under `ulimit -f <blocks>`); resolves with its end. */
function runScript(
  script: string,
  args: readonly string[],
  options: { fileSizeBlocks?: number; ms?: number } = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const node = [process.execPath, '--input-type=module', '-e', script, ...args];
  const child =
    options.fileSizeBlocks === undefined
      ? spawn(node[0] as string, node.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('bash', ['-c', `ulimit -f ${options.fileSizeBlocks} && exec "$0" "$@"`, ...node], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), options.ms ?? 20_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      // Let the pipes drain.
      setImmediate(() => resolve({ code, signal, stdout, stderr }));
    });
  });
}

// One contender: waits for the common start, then tries to take the lock (again every few ms while another holds it),
// holds it ~200 ms, and records when it held it and whether the lock file still named it at the end.
const CONTENDER = `
import { appendFileSync, readFileSync } from 'node:fs';
const [moduleUrl, output, record, startAt, holdMs, pollMs] = process.argv.slice(1);
const { takeLock } = await import(moduleUrl);
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
// The system clock, read at the instant in every process alike. Not performance.timeOrigin + now(): each process
// fixes its own timeOrigin at start-up, and on a loaded machine two processes' origins disagreed by 5 ms (a CI run
// reported a holder taking the lock 4.8 ms before the one before it let go, though each still held it at its end).
const now = () => Date.now();
while (Date.now() < Number(startAt)) {}
const deadline = Date.now() + 15000;
for (;;) {
  const lock = takeLock(output);
  if ('release' in lock) {
    const from = now();
    sleep(Number(holdMs));
    const to = now();
    let named;
    try { named = JSON.parse(readFileSync(output + '.lock', 'utf8')).pid; } catch { named = null; }
    appendFileSync(record, JSON.stringify({ pid: process.pid, from, to, stillMine: named === process.pid }) + '\\n');
    lock.release();
    break;
  }
  if (Date.now() > deadline) {
    appendFileSync(record, JSON.stringify({ pid: process.pid, refused: lock.refused }) + '\\n');
    process.exit(3);
  }
  if (Number(pollMs) > 0) sleep(Number(pollMs));
}
`;

describe('the lock of ewaybill create', () => {
  it('eight processes racing for a lock left by a dead run hold it one at a time', async () => {
    const moduleUrl = pathToFileURL(built.file).href;
    for (let trial = 1; trial <= 3; trial++) {
      const output = join(dir, `race-${trial}.jsonl`);
      const record = join(dir, `race-${trial}.record`);
      writeFileSync(record, '');
      writeFileSync(
        `${output}.lock`,
        `${JSON.stringify({ pid: DEAD_PID, host: hostname(), startedAt: new Date().toISOString(), processStart: 1 })}\n`,
      );
      const startAt = Date.now() + 1500;
      const ends = await Promise.all(
        Array.from({ length: 8 }, () =>
          runScript(CONTENDER, [moduleUrl, output, record, String(startAt), '200', '1'], { ms: 30_000 }),
        ),
      );
      for (const end of ends) expect(end, `trial ${trial}: ${end.stderr}`).toMatchObject({ code: 0 });
      const held = readFileSync(record, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { pid: number; from: number; to: number; stillMine: boolean })
        .sort((a, b) => a.from - b.from);
      expect(held, `trial ${trial}`).toHaveLength(8);
      for (const [i, holder] of held.entries()) {
        expect(holder.stillMine, `trial ${trial}: pid ${holder.pid} lost the lock while holding it`).toBe(true);
        const before = held[i - 1];
        if (before) {
          expect(
            holder.from,
            `trial ${trial}: pid ${holder.pid} took it while pid ${before.pid} held it`,
          ).toBeGreaterThanOrEqual(before.to);
        }
      }
      expect(existsSync(`${output}.lock`), `trial ${trial}: the last holder released it`).toBe(false);
    }
  }, 90_000);

  it('a lock naming our pid with another process start is an earlier life of the pid: taken over', () => {
    const output = join(dir, 'own-pid.jsonl');
    const me = { pid: process.pid, host: hostname(), startedAt: new Date(0).toISOString() };
    writeFileSync(
      `${output}.lock`,
      `${JSON.stringify({ ...me, processStart: Math.round(performance.timeOrigin) - 60_000 })}\n`,
    );
    const lock = takeLock(output);
    expect(lock).toHaveProperty('release');
    // A second run in this same process (same pid, same start) is refused, naming the pid.
    const second = takeLock(output);
    expect(second).toHaveProperty('refused');
    expect((second as { refused: string }).refused).toMatch(new RegExp(`another run \\(pid ${process.pid},`));
    if ('release' in lock) lock.release();
    expect(existsSync(`${output}.lock`)).toBe(false);
  });

  it('a release does not remove a lock another run has taken since', () => {
    const output = join(dir, 'taken-since.jsonl');
    const first = takeLock(output);
    expect(first).toHaveProperty('release');
    // Someone judged the first run gone and deleted its lock (as the refusal says to); a second run took the lock.
    rmSync(`${output}.lock`);
    const second = takeLock(output);
    expect(second).toHaveProperty('release');
    const held = readFileSync(`${output}.lock`, 'utf8');
    if ('release' in first) first.release();
    expect(existsSync(`${output}.lock`) && readFileSync(`${output}.lock`, 'utf8')).toBe(held);
    if ('release' in second) second.release();
    expect(existsSync(`${output}.lock`)).toBe(false);
  });

  /** A lock left by a dead run, on this host. */
  const deadLock = (output: string) =>
    writeFileSync(
      `${output}.lock`,
      `${JSON.stringify({ pid: DEAD_PID, host: hostname(), startedAt: new Date().toISOString(), processStart: 1 })}\n`,
    );

  it('while another run takes over a dead lock (its takeover lock is fresh), this one waits, then gives up: bounded', () => {
    const output = join(dir, 'takeover-busy.jsonl');
    deadLock(output);
    writeFileSync(`${output}.lock.takeover`, '');
    // It gives up (a refusal, not a hang: the test's timeout guards that) after its bounded number of tries.
    const result = takeLock(output);
    expect(result).toEqual({ refused: expect.stringContaining('other runs kept taking it') });
    // The dead run's lock was left for the run taking it over.
    expect(JSON.parse(readFileSync(`${output}.lock`, 'utf8'))).toMatchObject({ pid: DEAD_PID });
    rmSync(`${output}.lock.takeover`);
    rmSync(`${output}.lock`);
  });

  it('a takeover lock left by a run killed while taking over (older than 10 s) is cleared, and the dead lock taken over', () => {
    const output = join(dir, 'takeover-stale.jsonl');
    deadLock(output);
    writeFileSync(`${output}.lock.takeover`, '');
    const past = new Date(Date.now() - 60_000);
    utimesSync(`${output}.lock.takeover`, past, past);
    const result = takeLock(output);
    expect(result).toHaveProperty('release');
    expect(JSON.parse(readFileSync(`${output}.lock`, 'utf8'))).toMatchObject({ pid: process.pid });
    expect(existsSync(`${output}.lock.takeover`)).toBe(false);
    if ('release' in result) result.release();
  });
});
