// Builds the declarations with tsc, one .d.ts per source module, so that an editor's go-to-definition lands in a file
// named after what it declares (dist/types/esm/model/model-types.d.ts), not in a hashed chunk (sign-BbvbMul1.d.ts).
// openai-node ships its declarations the same way. The tree is emitted once for ES modules (the package is
// "type": "module") and copied for CommonJS under a package.json that says "type": "commonjs", so `require` users
// get CommonJS declarations (attw checks both). Each entry's dist/<entry>.d.ts and .d.cts re-exports its tree.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url);
const dist = (path) => new URL(`dist/${path}`, root);
/** Each public entry: its dist name and its module under src/ (the tsup entries and the `exports` map). */
const entries = {
  index: 'index',
  model: 'model/index',
  webhooks: 'webhooks/index',
  gst: 'gst/index',
  testing: 'testing/index',
  redis: 'redis/index',
  journal: 'journal/index',
};

rmSync(dist('types'), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.types.json'], { cwd: root, stdio: 'inherit' });
cpSync(dist('types/esm'), dist('types/cjs'), { recursive: true });
writeFileSync(dist('types/cjs/package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
for (const [name, module] of Object.entries(entries)) {
  writeFileSync(dist(`${name}.d.ts`), `export * from './types/esm/${module}.js';\n`);
  writeFileSync(dist(`${name}.d.cts`), `export * from './types/cjs/${module}.js';\n`);
}
