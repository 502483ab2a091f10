// A free TCP port on 127.0.0.1 and a redis-server on it: the one copy, for the benches that start their own servers
// and for the tests (test/redis/redis-server.ts builds its TestRedis on it). Types in ports.d.mts.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

/** A free TCP port on 127.0.0.1. */
export async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

/** Spawns `redis-server` with `args` and resolves once it accepts connections (its output says so). */
export async function spawnRedis(args) {
  const started = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise((resolve, reject) => {
    // Only guards a hang: redis-server says it is ready within a second, even on a loaded machine.
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 15_000);
    started.stdout.on('data', (chunk) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    started.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
  started.stdout.removeAllListeners('data');
  started.stdout.resume();
  started.stderr.resume();
  started.removeAllListeners('exit');
  return started;
}

/**
 * A redis-server on `port` of 127.0.0.1, without persistence, once it accepts connections. `extraArgs` come last, so
 * they override (`['--appendonly', 'yes']`) or add (`['--dir', dir]`, `['--enable-debug-command', 'local']`).
 */
export function startRedis(port, extraArgs = []) {
  return spawnRedis(['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extraArgs]);
}
