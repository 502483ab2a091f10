// Measure 4: what a browser bundle of one import costs: esbuild (bundle, minify, platform browser, ESM), then gzip -9.
// Each entry is also built with zod external: the difference is zod's share. Entries resolve through the package's
// own `exports` map, so a subpath that dist does not have is skipped with a note.
// `{ ServiceClient }` is also built with `splitting: true`, as a partner's bundler that splits code builds it: its
// first load is the entry chunk plus the chunks it imports statically (what a browser must fetch before the entry
// runs); the chunks reached only by `import()` load when first needed (ky on the first send, the preflight rules on
// the first e-way bill call, the error mapping with the portal's descriptions on the first error answer).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { firstLoad } from '../../scripts/first-load.mjs';
import { entryPath, KiB, ROOT, row } from './common.mjs';

export const title = 'bundle sizes (esbuild, browser, min+gzip)';

async function gzipSize(contents, external) {
  const result = await build({
    stdin: { contents, resolveDir: ROOT, loader: 'js' },
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    external,
  });
  return gzipSync(result.outputFiles[0].contents, { level: 9 }).length;
}

/** The split build of one entry: gzipped bytes of its first load and of all its chunks, and the chunk counts. */
async function splitSizes(contents) {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-bundle-'));
  try {
    const entry = join(dir, 'entry.js');
    writeFileSync(entry, contents);
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      splitting: true,
      outdir: join(dir, 'out'),
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const gzipped = new Map(
      result.outputFiles.map((file) => [file.path, gzipSync(file.contents, { level: 9 }).length]),
    );
    const outputs = result.metafile.outputs;
    const absolute = (path) => join(process.cwd(), path);
    const first = firstLoad(
      outputs,
      // The entry's own output: a chunk loaded by import() is an entry point of the metafile too.
      Object.keys(outputs).find((path) => path.endsWith('/entry.js')),
    );
    const sum = (paths) => paths.reduce((total, path) => total + (gzipped.get(absolute(path)) ?? 0), 0);
    return { first: sum([...first]), firstFiles: first.size, total: sum(Object.keys(outputs)), files: gzipped.size };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(contents) {
  const total = await gzipSize(contents, []);
  const withoutZod = await gzipSize(contents, ['zod', 'zod/*']);
  return { total, zod: total - withoutZod };
}

const kib = (bytes) => `${KiB(bytes).toFixed(1)} KiB`;

export async function run({ notes }) {
  const root = entryPath('.');
  if (!root) throw new Error('dist/index.js is missing: run npm run build');
  const client = `export { ServiceClient } from ${JSON.stringify(root)};`;
  const cases = [
    { label: '{ SDK_VERSION } from the root', contents: `export { SDK_VERSION } from ${JSON.stringify(root)};` },
  ];
  const webhooks = entryPath('./webhooks');
  if (webhooks) {
    cases.push({
      label: '{ verifyWebhook } from invoicing-service-sdk/webhooks',
      contents: `export { verifyWebhook } from ${JSON.stringify(webhooks)};`,
      goal: 12,
    });
  } else {
    notes.push(
      'bundle: no `invoicing-service-sdk/webhooks` entry in package.json exports / dist yet, so its row is skipped; ' +
        'the goal "verifyWebhook from its own entry ≤ 12 KiB" cannot be measured',
    );
  }
  const [ky, split, whole, ...sizes] = await Promise.all([
    measure(`export { default } from 'ky';`),
    splitSizes(client),
    measure(client),
    ...cases.map((c) => measure(c.contents)),
  ]);
  const rows = [
    row(
      'bundle, esbuild browser min+gzip: { ServiceClient } from the root, splitting: first load',
      `${kib(split.first)} (${split.firstFiles} of ${split.files} files)`,
      `ky alone ${kib(ky.total)}`,
      '≤ 30 KiB',
      KiB(split.first) <= 30,
    ),
    row('  the same, all chunks (the rest load on first send, call, error)', kib(split.total)),
    row(
      '  { ServiceClient } from the root, no splitting (one file)',
      `${kib(whole.total)} (zod ${kib(whole.zod)} of it)`,
    ),
    ...cases.map((c, i) =>
      row(
        `  ${c.label}`,
        `${kib(sizes[i].total)} (zod ${kib(sizes[i].zod)} of it)`,
        undefined,
        c.goal ? `≤ ${c.goal} KiB` : undefined,
        c.goal ? KiB(sizes[i].total) <= c.goal : undefined,
      ),
    ),
  ];
  if (!webhooks) {
    rows.push(
      row(
        '  { verifyWebhook } from invoicing-service-sdk/webhooks',
        'skipped: no such entry in dist',
        undefined,
        '≤ 12 KiB',
        false,
      ),
    );
  }
  return rows;
}
