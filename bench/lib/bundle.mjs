// Measure 4: what a browser bundle of one import costs: esbuild (bundle, minify, platform browser, ESM), then gzip -9.
// Each entry is also built with zod external: the difference is zod's share. Entries resolve through the package's
// own `exports` map, so a subpath that dist does not have is skipped with a note.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
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

async function measure(contents) {
  const total = await gzipSize(contents, []);
  const withoutZod = await gzipSize(contents, ['zod', 'zod/*']);
  return { total, zod: total - withoutZod };
}

const kib = (bytes) => `${KiB(bytes).toFixed(1)} KiB`;

export async function run({ notes }) {
  const root = entryPath('.');
  if (!root) throw new Error('dist/index.js is missing: run npm run build');
  const cases = [
    {
      label: '{ ServiceClient } from the root',
      contents: `export { ServiceClient } from ${JSON.stringify(root)};`,
      goal: 30,
    },
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
  const [ky, ...sizes] = await Promise.all([
    measure(`export { default } from 'ky';`),
    ...cases.map((c) => measure(c.contents)),
  ]);
  const rows = cases.map((c, i) =>
    row(
      `${i === 0 ? 'bundle, esbuild browser min+gzip: ' : '  '}${c.label}`,
      `${kib(sizes[i].total)} (zod ${kib(sizes[i].zod)} of it)`,
      i === 0 ? `ky alone ${kib(ky.total)}` : undefined,
      c.goal ? `≤ ${c.goal} KiB` : undefined,
      c.goal ? KiB(sizes[i].total) <= c.goal : undefined,
    ),
  );
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
