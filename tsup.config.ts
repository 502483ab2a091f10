import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Options } from 'tsup';

const pkg = JSON.parse(readFileSync('./package.json', 'utf8')) as { version: string };

// One entry per public subpath of the `exports` map; the bin is built apart (ESM only, no declarations).
// Declarations are not tsup's: scripts/build-types.mjs emits one per module with tsc (readable names, no hashed chunks).
const entry = {
  index: 'src/index.ts',
  model: 'src/model/index.ts',
  testing: 'src/testing/index.ts',
  gst: 'src/gst/index.ts',
  webhooks: 'src/webhooks/index.ts',
  redis: 'src/redis/index.ts',
  journal: 'src/journal/index.ts',
};

const shared = {
  entry,
  target: 'node22',
  // No source maps: they pointed at src/*.ts, which the package does not ship, and at the bundled zod, ky and
  // p-throttle under a node_modules/ it does not have; the output is not minified, so a stack trace reads as it is.
  sourcemap: false,
  tsconfig: 'tsconfig.build.json',
  define: { __SDK_VERSION__: JSON.stringify(pkg.version) },
} as const;

// msw is optional: the ESM build imports it once, when the kit loads (top-level await, same instance as the test's);
// CommonJS has no top-level await, so its build swaps in a loader that requires msw on first use of `handlers`.
const cjsMswLoader: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'cjs-msw-loader',
  setup(build) {
    build.onResolve({ filter: /^\.\/msw-loader\.js$/ }, () => ({
      path: fileURLToPath(new URL('./src/testing/msw-loader.cjs.ts', import.meta.url)),
    }));
  },
};

export default defineConfig([
  // ESM: ky and p-throttle stay external and are resolved by the consumer. zod is bundled, tree-shaken to the parts
  // of zod/mini the schemas use: Node cannot tree-shake, and importing zod/mini from the package loads all of zod's
  // core and its 40-odd locales, most of the SDK's import time. Its schemas still work inside a user's own zod (zod 4
  // reads schemas through their `_zod` internals, not instanceof); the package test checks that against the tarball.
  { ...shared, format: 'esm', dts: false, noExternal: ['zod'] },
  // CJS: ky and p-throttle are ESM-only, so they are bundled into the CJS build
  // (leaving ky external breaks with `import_ky.default.create is not a function`).
  { ...shared, format: 'cjs', dts: false, noExternal: ['ky', 'p-throttle'], esbuildPlugins: [cjsMswLoader] },
  // The `invoicing-service-sdk` command.
  { ...shared, entry: { cli: 'src/cli/index.ts' }, format: 'esm', dts: false },
]);
