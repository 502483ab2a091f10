// Builds the declarations with tsc, one .d.ts per source module, so that an editor's go-to-definition lands in a file
// named after what it declares (dist/types/esm/model/model-types.d.ts), not in a hashed chunk (sign-BbvbMul1.d.ts).
// openai-node ships its declarations the same way. The tree is emitted once for ES modules (the package is
// "type": "module") and copied for CommonJS under a package.json that says "type": "commonjs", so `require` users
// get CommonJS declarations (attw checks both). Each entry's dist/<entry>.d.ts and .d.cts re-exports its tree.
//
// The copies are then fitted to the projects that read them with `skipLibCheck: false` (scripts/consumer-types.mjs
// type-checks four such projects against the tarball):
// - in the CommonJS tree, a type import of an ESM-only dependency (ky) gets `with { 'resolution-mode': 'import' }`;
//   without it a `"module": "node16"` project fails with TS1541 (issue 28, item 10);
// - in both trees, a type import of an optional peer (msw) gets a `// @ts-expect-error` line: without msw installed the
//   types are `any` instead of TS2307, and msw 3 (ESM-only) read from a CommonJS project still gives its own types.
// A declaration that imports any other package (a devDependency, say) fails the build: users would not have it.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { join } from 'node:path';

const root = new URL('..', import.meta.url);
const dist = (path) => new URL(`dist/${path}`, root);
const require = createRequire(import.meta.url);
const ts = require('typescript');
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

const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const packageOf = (specifier) =>
  specifier.startsWith('@') ? specifier.split('/', 2).join('/') : specifier.split('/')[0];
/** A dependency whose `exports` offer no `require` condition: CommonJS declarations must import it as ESM. */
const esmOnly = (name) => {
  const dep = JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, root), 'utf8'));
  return dep.type === 'module' && dep.exports !== undefined && !JSON.stringify(dep.exports).includes('"require"');
};
const optionalPeers = new Set(
  Object.keys(manifest.peerDependenciesMeta ?? {}).filter((name) => manifest.peerDependenciesMeta[name].optional),
);
const dependencies = new Set(Object.keys(manifest.dependencies ?? {}));

/** Rewrites one declaration file's imports of packages (see the top of this file); `format` is 'esm' or 'cjs'. */
function fitImports(text, file, format) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edits = [];
  const visit = (node) => {
    let specifier;
    let attributesAt;
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      specifier = node.moduleSpecifier;
      attributesAt = node.attributes ? undefined : node.moduleSpecifier.getEnd();
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      specifier = node.argument.literal;
      attributesAt = node.attributes ? undefined : node.argument.getEnd();
    }
    if (specifier && ts.isStringLiteral(specifier) && !/^[./]/.test(specifier.text)) {
      const name = packageOf(specifier.text);
      const lineStart = text.lastIndexOf('\n', node.getStart(source)) + 1;
      if (specifier.text.startsWith('node:') || builtinModules.includes(specifier.text)) {
        // @types/node: every TypeScript user of a Node package has it.
      } else if (optionalPeers.has(name)) {
        edits.push([lineStart, `// @ts-ignore -- ${name} is an optional peer: without it these types are any\n`]);
      } else if (!dependencies.has(name)) {
        throw new Error(`${file} imports '${specifier.text}', which is not a dependency or an optional peer`);
      } else if (format === 'cjs' && esmOnly(name)) {
        if (attributesAt === undefined) throw new Error(`${file}: its import of '${name}' already has attributes`);
        const attribute = ts.isImportTypeNode(node)
          ? ", { with: { 'resolution-mode': 'import' } }"
          : " with { 'resolution-mode': 'import' }";
        edits.push([attributesAt, attribute]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edits
    .sort((a, b) => b[0] - a[0])
    .reduce((out, [at, insert]) => out.slice(0, at) + insert + out.slice(at), text);
}

function fitTree(dir, format) {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8');
    const fitted = fitImports(text, file, format);
    if (fitted !== text) writeFileSync(file, fitted);
  }
}

rmSync(dist('types'), { recursive: true, force: true });
const tsc = require.resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.types.json'], { cwd: root, stdio: 'inherit' });
cpSync(dist('types/esm'), dist('types/cjs'), { recursive: true });
writeFileSync(dist('types/cjs/package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
fitTree(dist('types/esm').pathname, 'esm');
fitTree(dist('types/cjs').pathname, 'cjs');
for (const [name, module] of Object.entries(entries)) {
  writeFileSync(dist(`${name}.d.ts`), `export * from './types/esm/${module}.js';\n`);
  writeFileSync(dist(`${name}.d.cts`), `export * from './types/cjs/${module}.js';\n`);
}
