// Tests the package as users get it: build, pack, install the tarball into a scratch consumer project,
// use it there with both `import` and `require`, then run @arethetypeswrong/cli and publint on it.
// Fails (exit 1) on any problem. Run with `npm run test:package`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const root = new URL('..', import.meta.url).pathname;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (cmd, args, cwd = root) =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
const step = (title) => console.log(`\n== ${title}`);

/**
 * Bundles `import { verifyWebhook } from 'invoicing-service-sdk/webhooks'` from the installed tarball as an edge
 * runtime's bundler would (esbuild, browser platform, minified), and lists what must not be in it: ky, p-throttle,
 * zod (dropped by the pure schema builders), the client, or more than 12 KiB gzipped.
 */
async function bundleWebhooks(consumer) {
  const { build } = await import('esbuild');
  writeFileSync(
    join(consumer, 'edge.mjs'),
    "import { verifyWebhook } from 'invoicing-service-sdk/webhooks';\nexport default { fetch: verifyWebhook };\n",
  );
  const result = await build({
    absWorkingDir: consumer,
    entryPoints: ['edge.mjs'],
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].text;
  // Modules esbuild read but tree-shook away have 0 bytes in the output: only what is left counts.
  const [output] = Object.values(result.metafile.outputs);
  const inputs = Object.entries(output.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
  const gzipped = gzipSync(code, { level: 9 }).byteLength;
  const problems = [];
  for (const dep of ['ky', 'p-throttle', 'zod']) {
    if (inputs.some((input) => input.includes(`node_modules/${dep}/`))) problems.push(`it contains ${dep}`);
  }
  for (const marker of ['createEwayBill', 'ServiceClient']) {
    if (code.includes(marker)) problems.push(`it contains client code (${marker})`);
  }
  if (gzipped > 12 * 1024) problems.push(`it is ${(gzipped / 1024).toFixed(1)} KiB gzipped, over 12 KiB`);
  const summary =
    `verifyWebhook from invoicing-service-sdk/webhooks: ${(code.length / 1024).toFixed(1)} KiB minified, ` +
    `${(gzipped / 1024).toFixed(1)} KiB min+gzip; inputs: ${inputs.map((input) => input.replace(/^.*node_modules\//, '')).join(', ')}`;
  return { problems, summary };
}

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

  step('the webhooks subpath bundles without the client (esbuild, browser, min+gzip)');
  const bundle = await bundleWebhooks(scratch);
  console.log(bundle.summary);
  if (bundle.problems.length) throw new Error(`the webhooks bundle: ${bundle.problems.join('; ')}`);

  step('the bin');
  const help = run(process.execPath, [join(scratch, 'node_modules/.bin/invoicing-service-sdk'), '--help'], scratch);
  if (!/mock-server/.test(help)) throw new Error(`invoicing-service-sdk --help did not describe mock-server:\n${help}`);
  console.log('invoicing-service-sdk --help describes mock-server');

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
