// Type-checks code samples of the docs as a partner would paste them into a project of their own: each sample is a
// module, the SDK's entries come from src/, and names a sample uses without declaring them (`client`, `model`, an
// application's own functions) are declared once in a prelude.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import type { CodeBlock } from './markdown.js';

const prelude = `import type { EwayBillModel } from 'invoicing-service-sdk';
declare global {
  // A fragment that follows a sample's import uses the class without importing it again.
  const ServiceClient: typeof import('invoicing-service-sdk').ServiceClient;
  type ServiceClient = import('invoicing-service-sdk').ServiceClient;
  const client: ServiceClient;
  const acmeClient: ServiceClient;
  const globexClient: ServiceClient;
  const model: EwayBillModel;
  const docHashId: string;
  const apiKey: string;
  const secret: string;
  const companyId: string;
  const invoice: { hash_id: string };
  const invoices: { company: 'acme' | 'globex'; hash_id: string }[];
  const fromErp: unknown;
  const secrets: { current(name: string): Promise<string> };
  const log: { warn(message: string, fields?: object): void };
  const jobs: { add(name: string, data: unknown): Promise<void> };
  function toModel(invoice: unknown): EwayBillModel;
  function onEvent(event: unknown): Promise<void>;
  function showFormErrors(issues: readonly unknown[]): void;
  function markRejected(doc: unknown, code: number | undefined, message: string | undefined): void;
  function scheduleReconcile(doc: unknown): void;
  function scheduleRetry(doc: unknown): void;
  function markForCorrection(doc: unknown, why: string): void;
  function markDone(doc: unknown): void;
  function markForReview(doc: unknown, why: string | undefined): void;
  function alertAdmin(what: string, why: string | undefined): void;
}
export {};
`;

/**
 * The limit of a test that runs the TypeScript compiler over samples (10-30 s on 2 shared cores, more under load): it
 * only guards a hang.
 */
export const TYPE_CHECK_TIMEOUT_MS = 300_000;

/** A scratch directory (under .tmp/, ignored by git) holding the prelude and one module per block. */
export function writeSamples(name: string, blocks: readonly CodeBlock[]): { dir: string; files: string[] } {
  const dir = resolve('.tmp', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'prelude.ts'), prelude);
  // Each sample is named after its page and the line its fence opens on.
  const files = blocks.map((block) => {
    const file = join(dir, `${block.file.replace(/[/.]/g, '-')}-line-${block.line}.ts`);
    writeFileSync(file, `${block.code}\nexport {};\n`);
    return file;
  });
  return { dir, files };
}

/**
 * The type errors of `files` (and of the prelude in `dir`), as "file:line TScode: message". `lib` chooses the
 * libraries (with or without the DOM); `msw` which msw major the samples and the SDK see. undici's types are
 * undici-types (undici 7, the major of Node 24's own fetch); ioredis and node-redis are the repository's aliases.
 */
export function typeErrors(dir: string, files: readonly string[], { dom = true, msw = 3 } = {}): string[] {
  const mswRoot = resolve('node_modules', msw === 2 ? 'msw2' : 'msw');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts', ...(dom ? ['lib.dom.d.ts', 'lib.dom.iterable.d.ts'] : [])],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    paths: {
      'invoicing-service-sdk': [resolve('src/index.ts')],
      'invoicing-service-sdk/*': [resolve('src/*/index.ts')],
      undici: [resolve('node_modules/undici-types/index.d.ts')],
      ioredis: [resolve('node_modules/ioredis5/built/index.d.ts')],
      redis: [resolve('node_modules/redis5/dist/index.d.ts')],
      msw: [mswRoot],
      'msw/*': [`${mswRoot}/*`],
    },
  };
  const program = ts.createProgram([join(dir, 'prelude.ts'), ...files], options);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file === undefined || files.includes(d.file.fileName) || d.file.fileName.startsWith(dir))
    .map((d) => {
      const line = d.file ? d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1 : 0;
      const where = d.file ? `${d.file.fileName.slice(resolve('.').length + 1)}:${line}` : '';
      return `${where} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
}
