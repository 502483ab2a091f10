// `npm test` starts with scripts/check-parts.mjs: on a machine without redis-server or Chromium it must say so at
// once, one line per missing part with the command that installs it, and exit non-zero, before lint and vitest.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);

/** npm's own script: the one running these tests (npm_execpath, under npm or npx), else the `npm` on the PATH. */
function npmCli(): string {
  if (process.env.npm_execpath) return process.env.npm_execpath;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (existsSync(join(dir, 'npm'))) return realpathSync(join(dir, 'npm'));
  }
  throw new Error('npm is not on the PATH');
}
const script = join(process.cwd(), 'scripts', 'check-parts.mjs');
// A PATH holding only node, npm and sh: no redis-server on it.
const bare = mkdtempSync(join(tmpdir(), 'check-parts-'));
symlinkSync(process.execPath, join(bare, 'node'));
symlinkSync(npmCli(), join(bare, 'npm'));
symlinkSync('/bin/sh', join(bare, 'sh'));
afterAll(() => rmSync(bare, { recursive: true, force: true }));

/** Runs `file args` with `env`, resolving with its exit code and output whatever the code. */
async function outcome(file: string, args: string[], env: NodeJS.ProcessEnv) {
  try {
    const { stdout, stderr } = await run(file, args, { env, cwd: process.cwd(), timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const lines = (text: string) => text.split('\n').filter((line) => line.startsWith('invoicing-service-sdk tests:'));

describe('scripts/check-parts.mjs', () => {
  it('names each missing part with the command that installs it, and exits 1', async () => {
    const result = await outcome(process.execPath, [script], { PATH: bare, CHROMIUM_PATH: join(bare, 'no-chromium') });
    expect(result.code).toBe(1);
    const said = lines(result.stderr);
    expect(said).toHaveLength(2);
    expect(said[0]).toMatch(/redis-server is not on the PATH.*apt-get install -y redis-server/);
    expect(said[1]).toMatch(/Chromium is not at CHROMIUM_PATH=.*no-chromium.*apt-get install -y chromium/);
  });

  it('looks for Chromium at /usr/bin/chromium without CHROMIUM_PATH, and names only what is missing', async () => {
    const env = { PATH: `${bare}:${process.env.PATH}`, CHROMIUM_PATH: '' };
    const withChromium = await outcome(process.execPath, [script], env);
    // This machine runs the browser tests, so it has both: the check passes silently.
    expect(withChromium).toMatchObject({ code: 0, stderr: '' });
    const noRedis = await outcome(process.execPath, [script], { PATH: bare, CHROMIUM_PATH: '/usr/bin/chromium' });
    expect(noRedis.code).toBe(1);
    expect(lines(noRedis.stderr)).toEqual([
      'invoicing-service-sdk tests: redis-server is not on the PATH (test/redis needs it): apt-get install -y redis-server',
    ]);
  });

  it('stops `npm test` before lint, typecheck and vitest', async () => {
    // CHROMIUM_PATH points nowhere, so the check always fails here: the suite cannot start itself recursively.
    const result = await outcome(join(bare, 'npm'), ['test'], {
      PATH: bare,
      HOME: process.env.HOME,
      CHROMIUM_PATH: join(bare, 'no-chromium'),
    });
    expect(result.code).not.toBe(0);
    expect(lines(result.stderr)).toHaveLength(2);
    // npm names each script as it starts it: after the check, nothing else ran (no lint, typecheck, docs, vitest).
    const started = [...result.stdout.matchAll(/^> invoicing-service-sdk@\S+ (\S+)$/gm)].map((match) => match[1]);
    expect(started).toEqual(['test']);
    expect(result.stdout).toMatch(
      /^> node scripts\/check-node\.mjs && node scripts\/check-parts\.mjs && npm run lint/m,
    );
  });
});
