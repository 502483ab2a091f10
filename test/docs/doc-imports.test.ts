// Issue 28.11: what a partner reads names only what exists. Every `import { … } from 'invoicing-service-sdk…'` and
// every `const { … } = require('invoicing-service-sdk…')` in a code block of README.md or docs/*.md names an export
// of that entry (a value or a type, read from src/ by the TypeScript checker), and names an entry that exists. A page
// whose prose says the root re-exports a subpath's names is held to it: every name it imports from a subpath must then
// be an export of the root too (0.2.0 dropped those re-exports, and two pages kept saying they were there).
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { codeBlocks, partnerDocs } from './markdown.js';

/** The `exports` map's subpaths and their modules under src/ (the same as tsup.config.ts and tsconfig's `paths`). */
const entries: Record<string, string> = {
  'invoicing-service-sdk': 'src/index.ts',
  ...Object.fromEntries(
    ['model', 'webhooks', 'gst', 'testing', 'redis'].map((sub) => [
      `invoicing-service-sdk/${sub}`,
      `src/${sub}/index.ts`,
    ]),
  ),
};

function exportsOf(): Map<string, Set<string>> {
  const program = ts.createProgram(Object.values(entries), {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  return new Map(
    Object.entries(entries).map(([entry, file]) => {
      const source = program.getSourceFile(file);
      const symbol = source && checker.getSymbolAtLocation(source);
      if (!symbol) throw new Error(`${file} is not a module`);
      return [entry, new Set(checker.getExportsOfModule(symbol).map((s) => s.getName()))];
    }),
  );
}

/** Each name a code block imports from the SDK: [entry, name, where]. */
function importedNames(): [string, string, string][] {
  const found: [string, string, string][] = [];
  const statement =
    /import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"](invoicing-service-sdk[^'"]*)['"]|const\s*\{([^}]*)\}\s*=\s*(?:await\s+import|require)\(\s*['"](invoicing-service-sdk[^'"]*)['"]\s*\)/g;
  for (const file of partnerDocs()) {
    for (const block of codeBlocks(file)) {
      for (const match of block.code.matchAll(statement)) {
        const list = match[1] ?? match[3] ?? '';
        const entry = match[2] ?? match[4] ?? '';
        const line = block.line + 1 + block.code.slice(0, match.index).split('\n').length - 1;
        for (const part of list.split(',')) {
          // `type X`, `X as Y` (import) and `X: Y` (destructuring) name X.
          const name = part
            .replace(/\/\/.*$/gm, '')
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+|\s*:\s*/)[0]
            ?.trim();
          if (name) found.push([entry, name, `${file}:${line}`]);
        }
      }
    }
  }
  return found;
}

describe('the docs import only what the SDK exports', () => {
  const exported = exportsOf();
  const imports = importedNames();

  it('the docs import from the SDK (the check has something to check)', () => {
    expect(imports.length).toBeGreaterThan(50);
    expect(new Set(imports.map(([entry]) => entry)).size).toBeGreaterThanOrEqual(5);
  });

  it('every imported name is an export of the entry it is imported from', () => {
    const wrong = imports
      .filter(([entry, name]) => !exported.get(entry)?.has(name))
      .map(([entry, name, where]) =>
        exported.has(entry) ? `${where}: '${entry}' does not export ${name}` : `${where}: no entry '${entry}'`,
      );
    expect(wrong).toEqual([]);
  });

  it("a page that says the root re-exports a subpath's names is true", () => {
    const wrong = [];
    for (const file of partnerDocs()) {
      // Sentences of the prose (code blocks left out) that say the root re-exports, and do not say it does not.
      const prose = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
      const claims = prose
        .split(/(?<=\.)\s+/)
        .map((sentence) => sentence.replace(/\s+/g, ' '))
        .filter((s) => /\broot\b/i.test(s) && /\bre-exports?\b/i.test(s) && !/\b(no longer|not|never)\b/i.test(s));
      if (claims.length === 0) continue;
      const fromSubpaths = imports.filter(
        ([entry, , where]) => entry !== 'invoicing-service-sdk' && where.startsWith(`${file}:`),
      );
      const missing = [...new Set(fromSubpaths.map(([, name]) => name))].filter(
        (name) => !exported.get('invoicing-service-sdk')?.has(name),
      );
      if (missing.length) wrong.push(`${file} says "${claims.join(' ')}", but the root lacks ${missing.join(', ')}`);
    }
    expect(wrong).toEqual([]);
  });

  it('every other package a README sample imports is one the README tells the reader to install', () => {
    // A sample that imports zod worked in this repository because the SDK's own zod is hoisted into node_modules;
    // in a partner's project it is theirs to install. The packages the README says to install, with `npm install`:
    const readme = readFileSync('README.md', 'utf8');
    const installed = new Set(
      [...readme.matchAll(/npm install((?:\s+-D)?(?:\s+[@\w./-]+)+)/g)].flatMap((m) =>
        (m[1] as string)
          .trim()
          .split(/\s+/)
          .filter((word) => word !== '-D')
          .map((word) => word.replace(/(?<=.)@[^/]*$/, '')),
      ),
    );
    // The test runner of a testing sample is the reader's own, whichever they use.
    const runners = new Set(['vitest']);
    const packageOf = (specifier: string) =>
      specifier.startsWith('@') ? specifier.split('/', 2).join('/') : (specifier.split('/')[0] as string);
    const missing = codeBlocks('README.md')
      .filter((block) => block.lang === 'ts')
      .flatMap((block) =>
        [...block.code.matchAll(/(?:from|import)\s*\(?\s*'([^'.][^']*)'/g)].map((m) => [
          packageOf(m[1] as string),
          `README.md:${block.line}`,
        ]),
      )
      .filter(([name]) => !/^(node:|invoicing-service-sdk$)/.test(name as string))
      .filter(([name]) => !installed.has(name as string) && !runners.has(name as string))
      .map(([name, where]) => `${where}: ${name} (the README never says npm install ${name})`);
    expect(missing).toEqual([]);
  });
});
