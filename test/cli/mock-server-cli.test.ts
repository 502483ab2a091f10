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
    expect(run.stdout()).toMatch(/--documents <n>.*Default: 5/);
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
    [['mock-server', '--documents', '0'], /--documents must be an integer from 1 to 1000; got '0'/],
    [['mock-server', '--documents', 'many'], /--documents must be an integer from 1 to 1000; got 'many'/],
  ])('prints the problem and where to read more to stderr, and exits 2, for %j', async (args, why) => {
    const run = runCli(cli.file, args);
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toMatch(why);
    // Issue 18.7: one line of problem, not the whole usage.
    expect(run.stderr()).toMatch(/Run `invoicing-service-sdk --help` for every command and option/);
    expect(run.stderr()).not.toMatch(/Usage:/);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'runs mock-server, which answers on its port, until %s, then exits 0',
    async (signal) => {
      const run = runCli(cli.file, ['mock-server', '--port', '0']);
      try {
        const [, url] = await run.waitFor(/Base URL:\s+(http:\/\/127\.0\.0\.1:\d+\/api\/partner)/);
        const [, key] = await run.waitFor(/SERVICE_API_KEY=(\S+)/);
        const [, doc] = await run.waitFor(/Documents:\s+(\S+)/);
        expect(doc).toBe('doc_demo_0001');
        expect(run.stdout()).toMatch(/Documents: doc_demo_0001 … doc_demo_0005 {2}\(5; each can get one e-way bill/);
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

  it('holds --documents documents, doc_demo_0001 on, each taking one e-way bill', async () => {
    const run = runCli(cli.file, ['mock-server', '--port', '0', '--documents', '3', '--no-rate-limit', '--quiet']);
    try {
      await run.waitFor(/Press Ctrl\+C/);
      const [, url] = await run.waitFor(/Base URL:\s+(\S+)/);
      const [, key] = await run.waitFor(/SERVICE_API_KEY=(\S+)/);
      expect(run.stdout()).toMatch(/Documents: doc_demo_0001 … doc_demo_0003 {2}\(3; /);
      expect(run.stdout()).toContain('Try (and again with doc_demo_0002, and so on):');
      const create = async (doc: string) => {
        const response = await fetch(`${url}/v2/ewaybill/${doc}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(buildEwayBillModel()),
        });
        const body = (await response.json()) as { success: boolean; error_code?: string };
        return body.success ? response.status : body.error_code;
      };
      const answers = [];
      for (const doc of ['doc_demo_0001', 'doc_demo_0001', 'doc_demo_0002', 'doc_demo_0003', 'doc_demo_0004']) {
        answers.push(await create(doc));
      }
      expect(answers).toEqual([200, 'PORTAL_ERROR_604', 200, 200, 'INVALID_HASH_ID']);
      run.child.kill('SIGTERM');
      expect(await run.exit()).toBe(0);
    } finally {
      run.child.kill('SIGKILL');
    }
  }, 20_000);

  it('prints a single document plainly for --documents 1', async () => {
    const run = runCli(cli.file, ['mock-server', '--port', '0', '--documents', '1']);
    try {
      await run.waitFor(/Press Ctrl\+C/);
      expect(run.stdout()).toMatch(/Documents: doc_demo_0001 {2}\(1; /);
      expect(run.stdout()).toMatch(/^Try:$/m);
      run.child.kill('SIGTERM');
      expect(await run.exit()).toBe(0);
    } finally {
      run.child.kill('SIGKILL');
    }
  }, 20_000);

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
