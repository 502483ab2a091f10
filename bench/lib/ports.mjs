// A free TCP port on 127.0.0.1 and a redis-server on it, for the benches that start their own servers.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

export async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

/** A redis-server on `port`, without persistence, once it accepts connections. */
export async function startRedis(port) {
  const child = spawn('redis-server', [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
  ]);
  let out = '';
  for await (const chunk of child.stdout) {
    out += chunk;
    if (out.includes('Ready to accept connections')) break;
  }
  child.stdout.resume();
  return child;
}
