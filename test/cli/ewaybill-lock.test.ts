// Issue 28, item 7: a stale lock whose pid now belongs to another process (a `sleep`) blocked every run until it was
// deleted by hand. The lock records when its process started; a live pid that started at another time is another
// process, and its lock is taken over. A lock of a real running CLI still blocks. Real child processes throughout.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processStartOf } from '../../src/internal/process-start.js';
import { validModel } from '../helpers/model.js';
import { type BillServer, startBillServer } from '../workflow/bill-server.js';
import { runCli, useBuiltCli } from './cli-process.js';

const KEY = 'sk_live_lock_word_pebble';
const built = useBuiltCli('ewaybill-lock');

let server: BillServer | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await server?.close();
  server = undefined;
});

/** Starts `command` (a long `sleep`), resolving once it runs. */
async function startSleeping(command = 'sleep'): Promise<ChildProcess & { pid: number }> {
  const child = spawn(command, ['600'], { stdio: 'ignore' });
  children.push(child);
  await new Promise((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  return child as ChildProcess & { pid: number };
}

let n = 0;
async function files() {
  n += 1;
  server = await startBillServer({ keys: [KEY], documents: ['ACME-001'] });
  const input = join(built.dir, `bills-${n}.jsonl`);
  const output = join(built.dir, `results-${n}.jsonl`);
  writeFileSync(input, `${JSON.stringify({ docHashId: 'ACME-001', model: validModel() })}\n`);
  return { input, output };
}

const create = (input: string, output: string) =>
  runCli(built.cli.file, ['ewaybill', 'create', '--input', input, '--output', output, '--progress', 'lines'], {
    SERVICE_API_KEY: KEY,
    SERVICE_BASE_URL: (server as BillServer).baseUrl,
  });

/** A lock as a run of the CLI writes it, naming `pid` and the start time `pidStart`. */
function writeLock(output: string, pid: number, pidStart: string | undefined) {
  const lock = { pid, host: hostname(), startedAt: '2026-11-20T10:00:00.000Z', processStart: 1, pidStart, token: 't' };
  writeFileSync(`${output}.lock`, `${JSON.stringify(lock)}\n`);
}

describe('the lock of ewaybill create and reused pids', () => {
  it('a lock whose pid now belongs to a process that started at another time is taken over: the run proceeds', async () => {
    const { input, output } = await files();
    const sleeping = await startSleeping();
    const started = processStartOf(sleeping.pid);
    expect(started).toBeDefined();
    // The lock's process started one clock tick (or second) earlier: it is not this sleep.
    writeLock(
      output,
      sleeping.pid,
      (started as string).replace(/\d+$/, (digits) => String(Number(digits) - 1)),
    );
    const run = create(input, output);
    expect(await run.exit(30_000), run.stderr()).toBe(0);
    expect(server?.generated.get('ACME-001')).toBe(1);
    expect(existsSync(`${output}.lock`)).toBe(false);
    expect(sleeping.exitCode).toBeNull(); // The sleep was left alone.
  }, 60_000);

  it("the same lock with the live process's own start time still blocks, naming its pid", async () => {
    const { input, output } = await files();
    const sleeping = await startSleeping();
    writeLock(output, sleeping.pid, processStartOf(sleeping.pid));
    const run = create(input, output);
    expect(await run.exit(30_000)).toBe(2);
    expect(run.stderr()).toContain(`another run (pid ${sleeping.pid}`);
    expect(server?.posts).toHaveLength(0);
  }, 60_000);

  it('a lock of an older version (no start time) naming a live pid still blocks', async () => {
    const { input, output } = await files();
    const sleeping = await startSleeping();
    writeLock(output, sleeping.pid, undefined);
    const run = create(input, output);
    expect(await run.exit(30_000)).toBe(2);
    expect(server?.posts).toHaveLength(0);
  }, 60_000);

  it('a real running CLI records its start time in its lock, and a second run is refused', async () => {
    const { input, output } = await files();
    server?.script('ACME-001', 'hang');
    const first = create(input, output);
    await server?.waitForPosts(1, 30_000);
    const lock = JSON.parse(readFileSync(`${output}.lock`, 'utf8')) as { pid: number; pidStart?: string };
    expect(lock.pid).toBe(first.child.pid);
    expect(lock.pidStart).toBe(processStartOf(first.child.pid as number));
    const second = create(input, output);
    expect(await second.exit(30_000)).toBe(2);
    expect(second.stderr()).toContain(`another run (pid ${first.child.pid}`);
    expect(server?.posts).toHaveLength(1);
    first.child.kill('SIGINT');
    await first.exit(30_000);
  }, 60_000);

  it.runIf(process.platform === 'linux')(
    'reads the start of a process whose name holds spaces and parentheses',
    async () => {
      const odd = join(built.dir, 'sl) (e p');
      copyFileSync('/usr/bin/sleep', odd);
      const sleeping = await startSleeping(odd);
      const stat = readFileSync(`/proc/${sleeping.pid}/stat`, 'utf8');
      expect(stat).toContain('(sl) (e p)');
      const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
      // Counting fields from the start would read another one: the name's spaces shift them.
      expect(stat.split(' ')[21]).not.toBe(ticks);
      expect(processStartOf(sleeping.pid)).toMatch(new RegExp(`^linux:[0-9a-f-]+:${ticks}$`));
    },
    30_000,
  );
});
