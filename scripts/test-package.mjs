// Tests the package as users get it: a plain `npm pack` from a tree without dist/ (the `prepack` script builds), the
// tarball installed into a scratch consumer project, used there with `import` and `require` on Node 24, Node 22 and the
// oldest Node of package.json's engines,
// first WITHOUT msw (the testing kit's mock server, fixtures and signWebhook need none), then with msw, and under real
// Jest 30: a default CommonJS project, and the ESM mode recipe of docs/testing.md with msw 3 and with msw 2. TypeScript
// projects (CommonJS and ES module, skipLibCheck false) type-check every subpath (scripts/consumer-types.mjs).
// Then @arethetypeswrong/cli and publint. Fails (exit 1) on any problem. Run with `npm run test:package`.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { typeCheckConsumers } from './consumer-types.mjs';
import { editorView } from './editor-check.mjs';
import { firstLoad } from './first-load.mjs';
import { engineFloor, ensureNode, ensureNode22 } from './node22.mjs';
import { linkProblems, sourceMapProblems } from './tarball-links.mjs';

const root = new URL('..', import.meta.url).pathname;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (cmd, args, cwd = root, env = process.env) =>
  execFileSync(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
const step = (title) => console.log(`\n== ${title}`);
const versionOf = (name) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
let passed = 0;
const pass = (message) => {
  passed += 1;
  console.log(`ok: ${message}`);
};

/** Writes a consumer check (test/consumer/*.mjs with a LOAD marker) as an ES module and as a CommonJS script. */
/** Installs `packages` (the versions this repository locks) into the scratch consumer, from npm's cache when it can. */
function addToConsumer(scratch, packages) {
  run(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', ...packages], scratch);
}

function writeCheck(scratch, source, name, loads) {
  const body = readFileSync(join(root, source), 'utf8');
  const esm = body.replace('/* LOAD */', loads.esm);
  const cjs = `(async () => {\n${body.replace('/* LOAD */', loads.cjs)}\n})().catch((e) => { console.error(e); process.exit(1); });`;
  writeFileSync(join(scratch, `${name}.mjs`), esm);
  writeFileSync(join(scratch, `${name}.cjs`), cjs);
  return [`${name}.mjs`, `${name}.cjs`];
}

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
  // Modules esbuild read but tree-shook away have 0 bytes in the output: only what is left counts.
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
  step('npm pack from a tree without dist/: the prepack script builds');
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const packOutput = run(npm, ['pack', '--json', '--pack-destination', scratch]);
  // The build's own output comes first on stdout; npm's JSON report is the last top-level array.
  const packed = JSON.parse(packOutput.slice(packOutput.lastIndexOf('\n[\n') + 1));
  const tarball = join(scratch, packed[0].filename);
  console.log(`${packed[0].filename}: ${packed[0].entryCount} files, ${packed[0].size} bytes`);
  const files = packed[0].files.map((f) => f.path);
  const needed = ['dist/index.js', 'dist/index.cjs', 'dist/index.d.ts', 'dist/index.d.cts', 'dist/testing.js'];
  const missing = [...needed, 'dist/testing.cjs', 'dist/testing.d.ts', 'dist/testing.d.cts', 'dist/cli.js'].filter(
    (f) => !files.includes(f),
  );
  if (missing.length) throw new Error(`the tarball lacks ${missing.join(', ')} (files: ${files.join(', ')})`);
  const stray = files.filter((f) => !/^(dist\/|docs\/|package\.json$|README\.md$|CHANGELOG\.md$|LICENSE$)/.test(f));
  if (stray.length) throw new Error(`unexpected files in the tarball: ${stray.join(', ')}`);
  pass('npm pack built dist/ and ships it (every entry, both formats, declarations, the bin), and docs/');

  step('the declaration files have readable names');
  // Each entry's dist/<entry>.d.ts and .d.cts, and one declaration per source module under dist/types/esm and
  // dist/types/cjs (scripts/build-types.mjs): no hashed chunk such as dist/sign-BbvbMul1.d.ts.
  const entryNames = ['index', 'model', 'webhooks', 'gst', 'testing', 'redis', 'journal'];
  const declarations = files.filter((f) => /\.d\.c?ts$/.test(f));
  const moduleOf = (f) => /^dist\/types\/(?:esm|cjs)\/(.+)\.d\.ts$/.exec(f)?.[1];
  const readable = (f) =>
    entryNames.some((name) => f === `dist/${name}.d.ts` || f === `dist/${name}.d.cts`) ||
    (moduleOf(f) !== undefined && existsSync(join(root, 'src', `${moduleOf(f)}.ts`)));
  // A hashed chunk (-BbvbMul1.d.ts) fails; a module whose own name looks like one (ship-to-gstin.d.ts) is readable.
  const hashLike = /-[A-Za-z0-9_-]{8}\.d\.c?ts$/;
  const unreadable = declarations.filter((f) => !readable(f));
  if (unreadable.length) {
    const hashed = unreadable.filter((f) => hashLike.test(f));
    throw new Error(
      `declaration files not named after an entry or a source module: ${unreadable.join(', ')}` +
        (hashed.length ? ` (hash-like: ${hashed.join(', ')})` : ''),
    );
  }
  if (!declarations.includes('dist/types/esm/model/model-types.d.ts')) throw new Error('no model-types.d.ts shipped');
  pass(`${declarations.length} declaration files: the entries, and one per source module under dist/types/{esm,cjs}`);

  step('the metadata and README work from the registry page');
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  for (const [field, value] of [
    ['repository', manifest.repository?.url],
    ['homepage', manifest.homepage],
    ['bugs', manifest.bugs?.url],
  ]) {
    if (!/^(git\+)?https:\/\/github\.com\/[\w-]+\/[\w-]+/.test(value ?? '')) throw new Error(`${field} is ${value}`);
  }
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
  const relative = links.filter((link) => !/^(#|https:\/\/)/.test(link));
  if (relative.length) throw new Error(`README links that break on the registry page: ${relative.join(', ')}`);
  const repoBase = `${manifest.homepage.replace(/#readme$/, '')}/`;
  const inRepo = links.filter((link) => link.startsWith(repoBase)).map((link) => link.slice(repoBase.length));
  const absent = inRepo
    .map((path) => /^(?:blob|tree)\/main\/([^#]+)/.exec(path)?.[1] ?? `(not blob/main or tree/main) ${path}`)
    .filter((path) => !existsSync(join(root, path)));
  if (absent.length) throw new Error(`README links to files that do not exist: ${absent.join(', ')}`);
  if (!/npm install \.\/invoicing-service-sdk-\d+\.\d+\.\d+\.tgz/.test(readme)) {
    throw new Error('the README does not say how to install from a packed tarball');
  }
  pass(`repository, homepage, bugs set; ${links.length} README links are anchors or absolute`);

  step('the main entry stays portable');
  const main = readFileSync(join(root, 'dist/index.js'), 'utf8');
  const portability = [/from ['"]node:/, /import\(['"]node:/, /from ['"]msw/].filter((pattern) => pattern.test(main));
  if (portability.length) throw new Error(`dist/index.js imports a Node built-in or msw: ${portability.join(', ')}`);
  pass('dist/index.js imports no node: module and no msw (edge runtimes can load it)');

  const node22 = ensureNode22(root);
  // The oldest Node that package.json's engines (and the README) claim: what is claimed is what runs here.
  const floor = engineFloor(root);
  const nodes = [
    [`Node ${process.versions.node}`, process.execPath],
    [`Node ${run(node22, ['--version']).trim().slice(1)}`, node22],
    [`Node ${floor} (engines' floor)`, ensureNode(floor)],
  ];

  step('install the tarball alone (no msw) into a scratch consumer');
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'consumer', private: true, version: '1.0.0' }));
  run(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', tarball], scratch);
  const noMsw = writeCheck(scratch, 'test/consumer/no-msw-check.mjs', 'no-msw', {
    esm: "const sdk = await import('invoicing-service-sdk'); const testing = await import('invoicing-service-sdk/testing');",
    cjs: "const sdk = require('invoicing-service-sdk'); const testing = require('invoicing-service-sdk/testing');",
  });
  for (const [label, binary] of nodes) {
    for (const file of noMsw) pass(`${label}: ${run(binary, [file], scratch).trim().replace(/^ok: /, '')}`);
  }

  step('TypeScript projects type-check the package with skipLibCheck false (no msw installed)');
  addToConsumer(scratch, [`@types/node@${versionOf('@types/node')}`]);
  for (const line of typeCheckConsumers(scratch, { msw: false })) pass(line);

  step('the installed package: every link of its README and docs resolves, every source map has its sources');
  {
    const installed = join(scratch, 'node_modules/invoicing-service-sdk');
    const repositoryBase = `${manifest.homepage.replace(/#readme$/, '')}/`;
    const problems = linkProblems(installed, files, repositoryBase);
    if (problems.length) throw new Error(`links that do not resolve in the package:\n${problems.join('\n')}`);
    const maps = sourceMapProblems(installed, files);
    if (maps.problems.length) throw new Error(`source maps:\n${maps.problems.join('\n')}`);
    pass(
      `the links of README.md and docs/*.md resolve in the package (repository examples/ aside); ${maps.maps} source maps, every sourceMappingURL shipped`,
    );
  }

  step('editor hovers and go-to-definition in the installed package (TypeScript language service)');
  const source =
    "import type { EwayBillModel } from 'invoicing-service-sdk';\n" +
    'export const date = (model: EwayBillModel): string => model.transporter_doc_date;\n';
  for (const view of editorView(scratch, source, ['EwayBillModel', 'transporter_doc_date'])) {
    if (view.errors.length) throw new Error(`${view.format}: the consumer file does not type-check: ${view.errors}`);
    const [model, date] = view.words;
    const expected = [
      [model, `node_modules/invoicing-service-sdk/dist/types/${view.format}/model/schemas.d.ts`, 'create e-way bill'],
      [date, `node_modules/invoicing-service-sdk/dist/types/${view.format}/model/model-types.d.ts`, 'DD-MM-YYYY'],
    ];
    for (const [word, file, hover] of expected) {
      if (word.definitions.join() !== file)
        throw new Error(`${view.format}: ${word.word} is defined in ${word.definitions}`);
      if (!word.documentation.includes(hover)) {
        throw new Error(`${view.format}: the hover of ${word.word} lacks '${hover}': ${word.documentation}`);
      }
    }
    pass(
      `${view.format}: go-to-definition of EwayBillModel and transporter_doc_date lands in ${model.definitions[0].replace(/^.*dist\//, 'dist/')} and ${date.definitions[0].replace(/^.*dist\//, 'dist/')}; the hover says DD-MM-YYYY`,
    );
  }

  step('add msw 3 and msw 2 (as msw2) to the consumer');
  addToConsumer(scratch, [`msw@${versionOf('msw')}`, `msw2@npm:msw@${versionOf('msw2')}`]);
  for (const line of typeCheckConsumers(scratch, { msw: true })) pass(line);
  const full = writeCheck(scratch, 'scripts/consumer-checks.mjs', 'check', {
    esm: "const sdk = await import('invoicing-service-sdk');",
    cjs: "const sdk = require('invoicing-service-sdk');",
  });
  for (const [label, binary] of nodes) {
    for (const file of full) pass(`${label}: ${run(binary, [file], scratch).trim().replace(/^ok: /, '')}`);
  }

  step('with @opentelemetry/api and the OTel trace SDK installed, a call is traced (import and require)');
  addToConsumer(
    scratch,
    ['api', 'core', 'sdk-trace-base'].map((name) => `@opentelemetry/${name}@${versionOf(`@opentelemetry/${name}`)}`),
  );
  const traced = writeCheck(scratch, 'test/consumer/otel-check.mjs', 'otel', {
    esm: "const sdk = await import('invoicing-service-sdk'); const testing = await import('invoicing-service-sdk/testing');",
    cjs: "const sdk = require('invoicing-service-sdk'); const testing = require('invoicing-service-sdk/testing');",
  });
  for (const [label, binary] of nodes) {
    for (const file of traced) pass(`${label}: ${run(binary, [file], scratch).trim().replace(/^ok: /, '')}`);
  }

  step('the webhooks subpath bundles without the client (esbuild, browser, min+gzip)');
  const bundle = await bundleImport(scratch, {
    source:
      "import { verifyWebhook } from 'invoicing-service-sdk/webhooks';\nexport default { fetch: verifyWebhook };\n",
    // zod is dropped by the pure schema builders.
    packages: ['ky', 'p-throttle', 'zod'],
    // zod's core is bundled into dist (ESM), so it is looked for by its schema machinery, not as a package. Its one
    // top-level statement (`globalThis.__zod_globalConfig ??= {}`, about 100 bytes) is a side effect no bundler may
    // drop, so it stays; no schema, parser or error class of zod does.
    markers: ['createEwayBill', 'ServiceClient', 'safeParse', 'invalid_type'],
    maxGzip: 12 * 1024,
  });
  console.log(bundle.summary);
  if (bundle.problems.length) throw new Error(`the webhooks bundle: ${bundle.problems.join('; ')}`);
  pass('the webhooks subpath bundles without ky, p-throttle, zod or the client');

  step('the gst subpath bundles without the client, ky or zod (esbuild, browser, min+gzip)');
  const gst = await bundleImport(scratch, {
    source: "import { checkGstin } from 'invoicing-service-sdk/gst';\nexport default checkGstin;\n",
    // The client's runtime dependencies, and zod: the GST checks are plain code, not schemas.
    packages: ['ky', 'p-throttle', 'zod'],
    // Client code (its class and its one call) and ky's own error names.
    markers: ['ServiceClient', 'createEwayBill', 'HTTPError', 'TimeoutError', 'safeParse', 'invalid_type'],
    maxGzip: 8 * 1024,
  });
  console.log(gst.summary);
  if (gst.problems.length) throw new Error(`the gst bundle: ${gst.problems.join('; ')}`);
  pass('the gst subpath bundles without ky, p-throttle, zod or the client');

  step('{ ServiceClient } with esbuild splitting: first load ≤ 30 KiB min+gzip, the rest loaded on first use');
  {
    const { build } = await import('esbuild');
    writeFileSync(join(scratch, 'split-entry.mjs'), "export { ServiceClient } from 'invoicing-service-sdk';\n");
    const result = await build({
      absWorkingDir: scratch,
      entryPoints: ['split-entry.mjs'],
      bundle: true,
      minify: true,
      splitting: true,
      outdir: 'split-out',
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const outputs = result.metafile.outputs;
    const text = new Map(result.outputFiles.map((file) => [file.path, file.text]));
    const first = firstLoad(outputs, 'split-out/split-entry.js');
    const firstCode = [...first].map((path) => text.get(join(scratch, path)) ?? '').join('\n');
    const firstGzip = [...first].reduce(
      (sum, path) => sum + gzipSync(text.get(join(scratch, path)) ?? '', { level: 9 }).length,
      0,
    );
    const problems = [];
    // The goal of issue 29: the first load of `{ ServiceClient }` split by a bundler stays at most 30 KiB
    // (docs/benchmarks.md, "The first load after issues 29–31").
    const limit = 30 * 1024;
    if (firstGzip > limit) problems.push(`its first load is ${firstGzip} bytes gzipped, over ${limit}`);
    // A portal description, a preflight rule's message and ky's own code must come in later chunks.
    for (const marker of ['Invalid login credentials', 'road-transporter', 'HTTPError']) {
      if (firstCode.includes(marker)) problems.push(`its first load holds ${JSON.stringify(marker)}`);
    }
    console.log(`  first load ${(firstGzip / 1024).toFixed(1)} KiB min+gzip in ${first.size} of ${text.size} files`);
    if (problems.length) throw new Error(`the split { ServiceClient } bundle: ${problems.join('; ')}`);
    pass(
      '{ ServiceClient } bundled with splitting: first load ≤ 30 KiB, descriptions, preflight and ky in later chunks',
    );
  }

  step('the bin');
  const help = run(process.execPath, [join(scratch, 'node_modules/.bin/invoicing-service-sdk'), '--help'], scratch);
  if (!/mock-server/.test(help)) throw new Error(`invoicing-service-sdk --help did not describe mock-server:\n${help}`);
  pass('invoicing-service-sdk --help describes mock-server');

  step('Jest 30 over the installed package');
  mkdirSync(join(scratch, 'tests'));
  cpSync(join(root, 'test/consumer/jest'), join(scratch, 'tests'), { recursive: true });
  const jest = join(root, 'node_modules/jest/bin/jest.js');
  const jestRun = (label, config, env = {}) => {
    const jestArgs = [jest, '--rootDir', scratch, '--ci', '--config', JSON.stringify(config)];
    const result = spawnSync(process.execPath, jestArgs, {
      cwd: scratch,
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    const summary = /Tests:\s+(.*)/.exec(result.stderr)?.[1] ?? 'no summary';
    if (result.status !== 0 || !/^\d+ passed, \d+ total$/.test(summary)) {
      throw Object.assign(new Error(`${label}: Jest exited ${result.status} (${summary})`), result);
    }
    pass(`${label} (Jest: ${summary})`);
  };
  // A default project: CommonJS, babel-jest, no configuration but which files to run.
  jestRun('Jest, default CommonJS project: require() of the kit; startMockServer, fixtures, signWebhook', {
    testMatch: ['**/kit-commonjs.test.js'],
  });
  const esm = { transform: {}, testMatch: ['**/kit-esm.test.mjs'] };
  const vmModules = { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim() };
  jestRun("Jest's ESM mode (docs/testing.md recipe): msw 3 handlers", esm, { ...vmModules, EXPECT_MSW_MAJOR: '3' });
  jestRun(
    "Jest's ESM mode: msw 2 handlers",
    { ...esm, moduleNameMapper: { '^msw$': 'msw2', '^msw/(.*)$': 'msw2/$1' } },
    { ...vmModules, EXPECT_MSW_MAJOR: '2' },
  );

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
  pass(run(process.execPath, ['redis-check.mjs'], scratch).trim());

  step('@arethetypeswrong/cli');
  console.log(run('npx', ['--no-install', 'attw', tarball, '--format', 'ascii']).trim());
  pass('attw');

  step('publint');
  const lint = run('npx', ['--no-install', 'publint', tarball, '--strict']).trim();
  console.log(lint);
  if (!/All good/i.test(lint)) throw new Error('publint reported problems');
  pass('publint');
} catch (error) {
  failed = true;
  console.error(`\ntest:package FAILED: ${error.message}`);
  if (error.stdout) console.error(String(error.stdout));
  if (error.stderr) console.error(String(error.stderr));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
console.log(`\npackage: ${passed} passed, ${failed ? 1 : 0} failed`);
if (failed) process.exit(1);
