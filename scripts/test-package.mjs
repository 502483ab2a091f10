// Tests the package as users get it: build, pack, install the tarball into a scratch consumer project,
// use it there with both `import` and `require`, then run @arethetypeswrong/cli and publint on it.
// Fails (exit 1) on any problem. Run with `npm run test:package`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (cmd, args, cwd = root) =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
const step = (title) => console.log(`\n== ${title}`);

const scratch = mkdtempSync(join(tmpdir(), 'invoicing-sdk-consumer-'));
let failed = false;
try {
  step('build');
  run(npm, ['run', 'build', '--silent']);

  step('pack');
  const packed = JSON.parse(run(npm, ['pack', '--json', '--pack-destination', scratch]));
  const tarball = join(scratch, packed[0].filename);
  console.log(`${packed[0].filename}: ${packed[0].entryCount} files, ${packed[0].size} bytes`);
  const files = packed[0].files.map((f) => f.path);
  const stray = files.filter((f) => !/^(dist\/|package\.json$|README\.md$|CHANGELOG\.md$|LICENSE$)/.test(f));
  if (stray.length) throw new Error(`unexpected files in the tarball: ${stray.join(', ')}`);

  step('the main entry stays portable');
  const main = readFileSync(join(root, 'dist/index.js'), 'utf8');
  const portability = [/from ['"]node:/, /import\(['"]node:/, /from ['"]msw/].filter((pattern) => pattern.test(main));
  if (portability.length) throw new Error(`dist/index.js imports a Node built-in or msw: ${portability.join(', ')}`);
  console.log('dist/index.js imports no node: module and no msw (edge runtimes can load it)');

  step('install the tarball into a scratch consumer');
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'consumer', private: true, version: '1.0.0' }));
  const msw = JSON.parse(readFileSync(join(root, 'node_modules/msw/package.json'), 'utf8')).version;
  run(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts', tarball, `msw@${msw}`], scratch);

  const consumerChecks = readFileSync(new URL('./consumer-checks.mjs', import.meta.url), 'utf8');
  for (const [format, file] of [
    ['esm', 'check.mjs'],
    ['cjs', 'check.cjs'],
  ]) {
    step(`use it with ${format === 'esm' ? 'import' : 'require'}`);
    const load =
      format === 'esm'
        ? "const sdk = await import('invoicing-service-sdk');"
        : "const sdk = require('invoicing-service-sdk');";
    const body = consumerChecks.replace('/* LOAD */', load);
    writeFileSync(
      join(scratch, file),
      format === 'esm' ? body : `(async () => {\n${body}\n})().catch((e) => { console.error(e); process.exit(1); });`,
    );
    console.log(run(process.execPath, [file], scratch).trim());
  }

  step('the bin');
  const help = run(process.execPath, [join(scratch, 'node_modules/.bin/invoicing-service-sdk'), '--help'], scratch);
  if (!/mock-server/.test(help)) throw new Error(`invoicing-service-sdk --help did not describe mock-server:\n${help}`);
  console.log('invoicing-service-sdk --help describes mock-server');

  step('the redis subpath loads without a Redis client installed, and shares the error hierarchy');
  if (/from ['"](ioredis|redis)['"]|require\(['"](ioredis|redis)['"]\)/.test(main)) {
    throw new Error('dist/index.js imports a Redis client');
  }
  const redisCheck = `
    const sdk = await import('invoicing-service-sdk');
    for (const [format, redis] of [['import', await import('invoicing-service-sdk/redis')], ['require', require('invoicing-service-sdk/redis')]]) {
      if (typeof redis.createRedisRateLimiter !== 'function' || typeof redis.createRedisDedupeStore !== 'function') {
        throw new Error(format + ': the redis subpath lacks its factories');
      }
      const error = new redis.RateLimiterUnavailableError('x');
      if (!(error instanceof sdk.ServiceError) || error.code !== 'RATE_LIMITER_UNAVAILABLE' || error.mayHaveSucceeded !== false) {
        throw new Error(format + ': RateLimiterUnavailableError is not a ServiceError with its code');
      }
      let typeError;
      try { redis.createRedisRateLimiter({ redis: {} }); } catch (e) { typeError = e; }
      if (!(typeError instanceof TypeError)) throw new Error(format + ': a bad client is not a TypeError');
    }
    console.log('invoicing-service-sdk/redis: import and require work without ioredis or redis installed');
  `;
  writeFileSync(
    join(scratch, 'redis-check.mjs'),
    `import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n${redisCheck}`,
  );
  console.log(run(process.execPath, ['redis-check.mjs'], scratch).trim());

  step('@arethetypeswrong/cli');
  console.log(run('npx', ['--no-install', 'attw', '--pack', '.', '--format', 'ascii']).trim());

  step('publint');
  const lint = run('npx', ['--no-install', 'publint', '--strict']).trim();
  console.log(lint);
  if (!/All good/i.test(lint)) throw new Error('publint reported problems');
} catch (error) {
  failed = true;
  console.error(`\ntest:package FAILED: ${error.message}`);
  if (error.stdout) console.error(String(error.stdout));
  if (error.stderr) console.error(String(error.stderr));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (failed) process.exit(1);
console.log('\npackage: 7 passed, 0 failed');
