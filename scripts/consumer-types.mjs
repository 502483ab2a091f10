// Type-checks the installed package the way TypeScript projects read it, with `skipLibCheck: false` so that every
// declaration the package ships is checked too: a CommonJS project (`import x = require(...)`) on "node16" and on
// "nodenext", and an ES module project on "nodenext" and on "bundler". Each imports every public subpath. Run by
// test-package.mjs inside its scratch consumer (the tarball installed, with @types/node), once without msw and once
// with msw 3, where the ES module projects also hand the mock's handlers to msw's own `setupServer`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const subpaths = { sdk: '', model: '/model', webhooks: '/webhooks', gst: '/gst', testing: '/testing', redis: '/redis' };
const uses =
  'export const used = [sdk.ServiceClient, model.STATES, webhooks.verifyWebhook, gst.checkGstin, ' +
  'testing.createMockService, redis.createRedisRateLimiter];\n' +
  "export const client: sdk.ServiceClient = new sdk.ServiceClient({ apiKey: 'k' });\n" +
  "export const valid: boolean = gst.checkGstin('27AAPFU0939F1ZV').valid;\n";
const commonjs = Object.entries(subpaths)
  .map(([name, path]) => `import ${name} = require('invoicing-service-sdk${path}');\n`)
  .join('');
const esm = Object.entries(subpaths)
  .map(([name, path]) => `import * as ${name} from 'invoicing-service-sdk${path}';\n`)
  .join('');
const withMsw =
  "import { setupServer } from 'msw/node';\n" +
  'export const server = setupServer(...testing.createMockService().handlers);\n';

/** The four projects; `msw` says whether msw is installed in `consumer`. @throws {Error} with tsc's output. */
export function typeCheckConsumers(consumer, { msw }) {
  const projects = [
    ['CommonJS, module node16', 'node16', 'node16', 'index.cts', commonjs + uses],
    ['CommonJS, module nodenext', 'nodenext', 'nodenext', 'index.cts', commonjs + uses],
    ['ES module, module nodenext', 'nodenext', 'nodenext', 'index.mts', esm + uses + (msw ? withMsw : '')],
    ['ES module, moduleResolution bundler', 'esnext', 'bundler', 'index.ts', esm + uses + (msw ? withMsw : '')],
  ];
  return projects.map(([label, module, moduleResolution, file, source]) => {
    const dir = join(consumer, `types-${module}-${moduleResolution}-${file.replace('.', '-')}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, file), source);
    const compilerOptions = { module, moduleResolution, strict: true, noEmit: true, skipLibCheck: false };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: [file] }, null, 2));
    try {
      execFileSync(process.execPath, [tsc, '-p', dir], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      throw new Error(`${label} (skipLibCheck false${msw ? ', msw 3' : ', no msw'}) fails tsc:\n${error.stdout}`);
    }
    return `${label}, skipLibCheck false${msw ? ', msw 3 installed' : ', no msw'}: every subpath type-checks`;
  });
}
