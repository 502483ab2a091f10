// npm run test:stress (scripts/test-stress.mjs): the command runs while busy processes load the machine, and every
// busy process is stopped at the end, pass or fail, and on SIGTERM. One busy process here, to spare the machine.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const script = join(process.cwd(), 'scripts', 'test-stress.mjs');

/** Whether a process with this id exists and has not exited (a zombie, not yet reaped, has). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Starts the stress script with `args`, collecting its output; `line` resolves at the first line matching. */
function stress(args: string[], procs = '1') {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, STRESS_PROCS: procs },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiting = new Set<{ pattern: RegExp; resolve(match: RegExpMatchArray): void }>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const waiter of waiting) {
      const match = stdout.match(waiter.pattern);
      if (!match) continue;
      waiting.delete(waiter);
      waiter.resolve(match);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return {
    child,
    line: (pattern: RegExp) => new Promise<RegExpMatchArray>((resolve) => waiting.add({ pattern, resolve })),
    done: async () => {
      const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
      return { code, signal, stdout, stderr };
    },
  };
}

// The command prints the busy processes' ids and whether each was running while it ran.
const REPORT = `const pids = (process.env.STRESS_PIDS ?? '').split(',').filter(Boolean).map(Number);
const alive = pids.filter((pid) => { try { process.kill(pid, 0); return true; } catch { return false; } });
console.log('busy ' + JSON.stringify(pids) + ' alive ' + JSON.stringify(alive) + ' me ' + process.pid);`;

const report = (stdout: string) => {
  const match = /busy (\[[^\]]*\]) alive (\[[^\]]*\]) me (\d+)/.exec(stdout);
  if (!match) throw new Error(`no report in ${stdout}`);
  return { busy: JSON.parse(match[1] ?? '') as number[], alive: JSON.parse(match[2] ?? '') as number[] };
};

describe('scripts/test-stress.mjs', () => {
  it('runs the command under STRESS_PROCS busy processes and stops them when it passes', async () => {
    const run = stress(['--run', process.execPath, '-e', REPORT], '2');
    const { code, stdout } = await run.done();
    expect(code).toBe(0);
    const { busy, alive: running } = report(stdout);
    expect(busy).toHaveLength(2);
    expect(running).toEqual(busy);
    expect(busy.filter(alive)).toEqual([]);
    expect(stdout).toMatch(/test:stress: passed in [\d.]+ s under 2 busy process\(es\)/);
  });

  it('passes the command exit code on when it fails, and stops the busy processes all the same', async () => {
    const run = stress(['--run', process.execPath, '-e', `${REPORT}\nprocess.exit(3);`]);
    const { code, stdout } = await run.done();
    expect(code).toBe(3);
    const { busy, alive: running } = report(stdout);
    expect(running).toEqual(busy);
    expect(busy.filter(alive)).toEqual([]);
    expect(stdout).toMatch(/test:stress: FAILED \(exit 3\)/);
  });

  it('on SIGTERM stops the command and the busy processes, and exits 143', async () => {
    const run = stress(['--run', process.execPath, '-e', `${REPORT}\nsetInterval(() => {}, 1000);`]);
    const [, , , me] = await run.line(/busy (\[[^\]]*\]) alive (\[[^\]]*\]) me (\d+)/);
    run.child.kill('SIGTERM');
    const { code, stdout, stderr } = await run.done();
    expect(code).toBe(143);
    expect(stderr).toMatch(/SIGTERM: stopping the test and the 1 busy process/);
    expect(report(stdout).busy.filter(alive)).toEqual([]);
    expect(alive(Number(me))).toBe(false);
  });

  it('stops its busy processes by themselves when it is killed outright (SIGKILL)', async () => {
    const run = stress(['--run', process.execPath, '-e', `${REPORT}\nsetInterval(() => {}, 1000);`]);
    const [, busyText = '[]', , me] = await run.line(/busy (\[[^\]]*\]) alive (\[[^\]]*\]) me (\d+)/);
    run.child.kill('SIGKILL');
    await run.done();
    const busy = JSON.parse(busyText) as number[];
    // The command itself is not the stress script's child any more; it is stopped here.
    process.kill(Number(me), 'SIGKILL');
    // Each busy process notices between two 50 ms slices that its parent is gone: wait for their exits (the timeout
    // only guards against a hang).
    await vi.waitFor(() => expect(busy.filter(alive)).toEqual([]), { timeout: 15_000, interval: 20 });
  });

  it('refuses unknown arguments and a bad STRESS_PROCS before starting anything', async () => {
    const unknown = await stress(['--fast']).done();
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown arguments \["--fast"\]/);
    const bad = await stress(['--run', 'true'], 'many').done();
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/STRESS_PROCS must be a whole number >= 0; got "many"/);
  });
});
