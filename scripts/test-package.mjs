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
 * Bundles `source` (one import of the installed tarball) as a browser or edge bundler would (esbuild, browser
 * platform, minified), and lists what must not be in it: the `packages` among the bundle's inputs (only modules that
 * kept bytes in the output count), the `markers` in its code, or more than `maxGzip` bytes gzipped.
 */
async function bundleImport(consumer, { source, packages, markers, maxGzip }) {
  const { build } = await import('esbuild');
  const file = `bundle-${Math.random().toString(36).slice(2)}.mjs`;
  writeFileSync(join(consumer, file), source);
  const result = await build({
    absWorkingDir: consumer,
    entryPoints: [file],
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].text;
  const [output] = Object.values(result.metafile.outputs);
  const inputs = Object.entries(output.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
  const gzipped = gzipSync(code, { level: 9 }).byteLength;
  const problems = [
    ...packages.filter((dep) => inputs.some((input) => input.includes(`node_modules/${dep}/`))),
    ...markers.filter((marker) => code.includes(marker)).map((marker) => `the string '${marker}'`),
  ].map((what) => `it contains ${what}`);
  if (gzipped > maxGzip) problems.push(`it is ${gzipped} bytes gzipped, over ${maxGzip}`);
  const summary =
    `${source.split('\n')[0]}\n  ${(code.length / 1024).toFixed(1)} KiB minified, ${(gzipped / 1024).toFixed(1)} KiB ` +
    `min+gzip; inputs: ${inputs.map((input) => input.replace(/^.*node_modules\//, '')).join(', ')}`;
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

  step('the gst subpath bundles without the client, ky or zod (esbuild, browser, min+gzip)');
  const gst = await bundleImport(scratch, {
    source: "import { checkGstin } from 'invoicing-service-sdk/gst';\nexport default checkGstin;\n",
    // The client's runtime dependencies, and zod: the GST checks are plain code, not schemas.
    packages: ['ky', 'p-throttle', 'zod'],
    // Client code (its class and its one call) and ky's own error names.
    markers: ['ServiceClient', 'createEwayBill', 'HTTPError', 'TimeoutError'],
    maxGzip: 8 * 1024,
  });
  console.log(gst.summary);
  if (gst.problems.length) throw new Error(`the gst bundle: ${gst.problems.join('; ')}`);

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
