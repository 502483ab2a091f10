import { createServer } from 'node:net';
import { buildEwayBillModel } from 'invoicing-service-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, runCli } from './cli-process.js';

let cli: Awaited<ReturnType<typeof buildCli>>;
beforeAll(async () => {
  cli = await buildCli();
}, 60_000);
afterAll(() => cli?.remove());

describe('the invoicing-service-sdk command', () => {
  it('prints the usage and exits 0 on --help', async () => {
    const run = runCli(cli.file, ['--help']);
    expect(await run.exit()).toBe(0);
    expect(run.stdout()).toMatch(/^Usage: invoicing-service-sdk <command>/);
  });

  it('prints the SDK version on --version', async () => {
    const run = runCli(cli.file, ['--version']);
    expect(await run.exit()).toBe(0);
    expect(run.stdout().trim()).toBe('0.0.0-cli-test');
  });

  it.each([
    [['frobnicate'], /Unknown command 'frobnicate'/],
    [[], /No command given/],
    [['mock-server', '--port', 'abc'], /--port must be an integer/],
    [['mock-server', '--bogus'], /Unknown option '--bogus'/],
  ])('prints the usage to stderr and exits 2 for %j', async (args, why) => {
    const run = runCli(cli.file, args);
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toMatch(why);
    expect(run.stderr()).toMatch(/Usage:/);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'runs mock-server, which answers on its port, until %s, then exits 0',
    async (signal) => {
      const run = runCli(cli.file, ['mock-server', '--port', '0']);
      try {
        const [, url] = await run.waitFor(/Base URL:\s+(http:\/\/127\.0\.0\.1:\d+\/api\/partner)/);
        const [, key] = await run.waitFor(/SERVICE_API_KEY=(\S+)/);
        const [, doc] = await run.waitFor(/Document:\s+(\S+)/);
        const response = await fetch(`${url}/v2/ewaybill/${doc}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(buildEwayBillModel()),
        });
        expect(response.status).toBe(200);
        expect((await response.json()).success).toBe(true);
        await run.waitFor(/-> 200 \(key_1\)/);
        run.child.kill(signal);
        expect(await run.exit()).toBe(0);
        expect(run.stdout()).toContain(`Received ${signal}`);
        // The key is printed once, on the line meant for the user; request logs carry only its public id.
        expect(run.stdout().split(key ?? '').length - 1).toBe(1);
      } finally {
        run.child.kill('SIGKILL');
      }
    },
    20_000,
  );

  it('exits 1 with a hint when the port is in use', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const run = runCli(cli.file, ['mock-server', '--port', String(port)]);
      expect(await run.exit()).toBe(1);
      expect(run.stderr()).toMatch(/port is in use/);
    } finally {
      blocker.close();
    }
  });
});
