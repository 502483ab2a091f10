// Issue 28.11: every TypeScript sample of the README compiles, as a partner would paste it: with the DOM lib (a
// project that also targets browsers) and without it (Node's types alone). Names a sample uses but does not declare
// (`client`, `model`, an application's own functions) are declared once in a prelude; everything a sample imports is
// real: the SDK's entries (from src/), and the packages it names (undici's types are undici-types, the types of undici
// 7, the major Node 24's own fetch is built on; ioredis 5 and node-redis 5 are the repository's aliases).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { codeBlocks } from './markdown.js';

const dir = resolve('.tmp/readme-samples');
const prelude = `import type { EwayBillModel } from 'invoicing-service-sdk';
declare global {
  // A fragment that follows a sample's import uses the class without importing it again.
  const ServiceClient: typeof import('invoicing-service-sdk').ServiceClient;
  type ServiceClient = import('invoicing-service-sdk').ServiceClient;
  const client: import('invoicing-service-sdk').ServiceClient;
  const acmeClient: import('invoicing-service-sdk').ServiceClient;
  const globexClient: import('invoicing-service-sdk').ServiceClient;
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

function compile(files: string[], lib: string[]): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2023,
    lib,
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
    },
  };
  const program = ts.createProgram([join(dir, 'prelude.ts'), ...files], options);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file === undefined || d.file.fileName.startsWith(dir))
    .map((d) => {
      const where = d.file
        ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
        : '';
      return `${where} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
}

describe('README samples', () => {
  const samples = codeBlocks('README.md').filter((block) => block.lang === 'ts');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'prelude.ts'), prelude);
  // Each sample is a module of its own, named after the README line its fence opens on.
  const files = samples.map((block) => {
    const file = join(dir, `readme-line-${block.line}.ts`);
    writeFileSync(file, `${block.code}\nexport {};\n`);
    return file;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('there are samples to check', () => {
    expect(samples.length).toBeGreaterThan(10);
  });
  it('every ts sample type-checks with the DOM lib', () => {
    expect(compile(files, ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'])).toEqual([]);
  });
  it('every ts sample type-checks with Node types alone (no DOM lib)', () => {
    expect(compile(files, ['lib.es2023.d.ts'])).toEqual([]);
  });
});
