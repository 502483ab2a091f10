// `mock-server --host 0.0.0.0` opens the mock to the network: the CLI, as a child process, says so on start, and its
// dashboard answers only the names it was given (--allowed-host).

import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, type CliRun, runCli } from './cli-process.js';

let cli: Awaited<ReturnType<typeof buildCli>>;
beforeAll(async () => {
  cli = await buildCli();
}, 60_000);
afterAll(() => cli?.remove());

/** Resolves when stderr so far matches `pattern`; rejects after `ms` (a guard against hangs only). */
function waitForStderr(run: CliRun, pattern: RegExp, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!pattern.test(run.stderr())) return;
      clearTimeout(timer);
      run.child.stderr?.off('data', check);
      resolve();
    };
    const timer = setTimeout(() => {
      run.child.stderr?.off('data', check);
      reject(new Error(`no ${pattern} on stderr within ${ms} ms:\n${run.stderr()}`));
    }, ms);
    run.child.stderr?.on('data', check);
    check();
  });
}

/** The status of `GET /_dashboard/state` on 127.0.0.1:`port` with the given `Host` header. */
function stateStatus(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/_dashboard/state', headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end();
  });
}

describe('mock-server on an address other than loopback', () => {
  it('warns on stderr that the state and the switches are reachable, and how to restrict them', async () => {
    const run = runCli(cli.file, ['mock-server', '--port', '0', '--host', '0.0.0.0', '--allowed-host', 'mock']);
    try {
      const [, port] = await run.waitFor(/Dashboard: http:\/\/0\.0\.0\.0:(\d+)\//);
      await waitForStderr(run, /--allowed-host <name>/);
      expect(run.stderr()).toContain(
        `Warning: --host 0.0.0.0 makes the mock reachable from the network on port ${port}, not only from this machine.`,
      );
      expect(run.stderr()).toMatch(/read every recorded request .* switch faults on and re-send signed\s+webhooks/s);
      expect(run.stderr()).toContain('Keep it local with --host 127.0.0.1 (the default)');
      // The dashboard answers the bound address and the allowed name, and nothing else.
      const statuses = [];
      for (const host of [`0.0.0.0:${port}`, `mock:${port}`, `localhost:${port}`, `rebind.test:${port}`]) {
        statuses.push(await stateStatus(Number(port), host));
      }
      expect(statuses).toEqual([200, 200, 200, 403]);
      run.child.kill('SIGTERM');
      expect(await run.exit()).toBe(0);
    } finally {
      run.child.kill('SIGKILL');
    }
  }, 20_000);

  it.each([['127.0.0.1'], ['localhost']])(
    'prints no warning for --host %s',
    async (host) => {
      const run = runCli(cli.file, ['mock-server', '--port', '0', '--host', host, '--quiet']);
      try {
        await run.waitFor(/Press Ctrl\+C/);
        run.child.kill('SIGTERM');
        expect(await run.exit()).toBe(0);
        expect(run.stderr()).toBe('');
      } finally {
        run.child.kill('SIGKILL');
      }
    },
    20_000,
  );

  it('refuses an --allowed-host with a port, exiting 2', async () => {
    const run = runCli(cli.file, ['mock-server', '--allowed-host', 'mock:4010']);
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toMatch(/--allowed-host must be a host name or an IP address, without scheme, port or path/);
  });
});
