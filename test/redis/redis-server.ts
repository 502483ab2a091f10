import { type ChildProcess, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
// The one copy of these, shared with the benches (bench/lib/ports.mjs, typed by ports.d.mts).
import { freePort, startRedis as startRedisOn } from '../../bench/lib/ports.mjs';
import { listenOnLoopback } from '../helpers/loopback.js';

export { freePort, spawnRedis } from '../../bench/lib/ports.mjs';

/** Makes sure `redis-server` is on the PATH: installs Debian's package when running as root, else fails clearly. */
export function ensureRedisServer(): void {
  if (!spawnSync('redis-server', ['--version']).error) return;
  if (process.getuid?.() !== 0) {
    throw new Error(
      'These tests need redis-server, which is not on the PATH. Install it (Debian/Ubuntu: sudo apt-get install -y redis-server) and run them again.',
    );
  }
  const installed = spawnSync('sh', ['-c', 'apt-get update && apt-get install -y redis-server'], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (installed.status !== 0 || spawnSync('redis-server', ['--version']).error) {
    throw new Error('redis-server is missing and `apt-get install -y redis-server` did not install it');
  }
}

/** A redis-server of this test, on a free loopback port, without persistence. */
export interface TestRedis {
  readonly port: number;
  readonly url: string;
  /** Stops it (SIGTERM), waiting for its exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /**
   * Stops the process (SIGSTOP) and resolves once the kernel reports it stopped: from then on Redis answers nothing
   * until `thaw()`, whatever the machine's load (a `CLIENT PAUSE` of a given length can end before a loaded client's
   * command reaches it, and cannot be lifted early).
   */
  freeze(): Promise<void>;
  /** Lets a frozen process run again (SIGCONT). */
  thaw(): void;
}

/** Starts one; `extraArgs` are more redis-server options (`['--enable-debug-command', 'local']`, say). */
export async function startRedis(extraArgs: readonly string[] = []): Promise<TestRedis> {
  ensureRedisServer();
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = await startRedisOn(port, extraArgs);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGTERM');
    running.kill('SIGCONT'); // a frozen one acts on the SIGTERM once it runs
    await exited;
  };
  const freeze = async () => {
    const pid = child?.pid;
    if (pid === undefined) throw new Error('redis-server is not running');
    process.kill(pid, 'SIGSTOP');
    // The state field of /proc/PID/stat (after the name in parentheses) is T once the process is stopped. Bounded in
    // count; a stop takes effect within a scheduling round, so the bound only guards against a hang.
    for (let check = 0; check < 10_000; check++) {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('T')) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error('redis-server did not stop after SIGSTOP');
  };
  const thaw = () => {
    if (child?.pid !== undefined) process.kill(child.pid, 'SIGCONT');
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, stop, start, freeze, thaw };
}

/** A TCP server on loopback that accepts connections and never answers: a hung Redis. */
export async function startHungServer(): Promise<{ port: number; close(): Promise<void> }> {
  return listenOnLoopback(createServer((socket) => socket.on('error', () => {})));
}
