// Issue 29.7: docs/architecture.md cannot drift in silence. Every file path it names exists; every identifier it
// names is in the source (src/, or a file the page cites, such as ky's own source); an identifier it places in a file
// (`file.ts` (`name`, `name`) or `name` in `file.ts`) is in that file; every `npm run` command it names is a script,
// and a benchmark it names is one `npm run bench` knows. The page once cited `loadKy`, gone for a release.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const page = 'docs/architecture.md';
const text = readFileSync(page, 'utf8');
const sourceFiles = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => join('src', file));

const spans = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string);
const isPath = (span: string) => /^[\w@.-]+(\/[\w@.-]*)+$|^[\w.-]+\.(ts|mjs|js|json|md)$/.test(span);
const isIdentifier = (span: string) => /^\.?#?[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*(\(\))?$/.test(span);
const literals = new Set(['true', 'false', 'null', 'undefined']);

/** Where a path span points: itself from the root, or a bare file name found once under src/. */
function locate(span: string): string | undefined {
  if (span.includes('/')) return existsSync(span) ? span : undefined;
  const found = sourceFiles.filter((file) => basename(file) === span);
  return found.length === 1 ? found[0] : undefined;
}

const cited = spans
  .filter(isPath)
  .flatMap((span) => locate(span) ?? [])
  .filter((file) => !file.endsWith('/'));
const corpus = [...new Set([...sourceFiles, ...cited])].map((file) => readFileSync(file, 'utf8')).join('\n');
const wordIn = (name: string, haystack: string) =>
  new RegExp(`(^|[^\\w$#])${name.replace(/[$#.]/g, '\\$&')}(?![\\w$])`).test(haystack);
/** `a.b()` and `.json()` name `b` and `json`: the last member, without the call. */
const lastName = (span: string) => span.replace(/\(\)$/, '').split('.').pop() as string;

describe('docs/architecture.md names only what exists', () => {
  it('names paths and identifiers (the check has something to check)', () => {
    expect(spans.filter(isPath).length).toBeGreaterThan(10);
    expect(spans.filter(isIdentifier).length).toBeGreaterThan(15);
  });

  it('every file path it names exists', () => {
    expect(spans.filter(isPath).filter((span) => locate(span) === undefined)).toEqual([]);
  });

  it('every identifier it names is in the source or in a file it cites', () => {
    const absent = spans
      .filter((span) => isIdentifier(span) && !isPath(span) && !literals.has(span))
      .filter((span) => !wordIn(lastName(span), corpus));
    expect(absent).toEqual([]);
  });

  it('an identifier it places in a file is in that file', () => {
    const placed: [string, string][] = [];
    // `file` (`a`, `b`)
    for (const m of text.matchAll(/`([^`\n]+)`\s*\(((?:`[^`\n]+`(?:,\s*)?)+)\)/g)) {
      if (!isPath(m[1] as string)) continue;
      for (const id of (m[2] as string).matchAll(/`([^`\n]+)`/g)) placed.push([id[1] as string, m[1] as string]);
    }
    // `name` in `file`
    for (const m of text.matchAll(/`([^`\n]+)`\s+in\s+`([^`\n]+)`/g)) {
      if (isPath(m[2] as string) && isIdentifier(m[1] as string)) placed.push([m[1] as string, m[2] as string]);
    }
    expect(placed.length).toBeGreaterThan(3);
    const wrong = placed
      .filter(([id, file]) => {
        const where = locate(file);
        if (where === undefined) return true;
        // `src/journal/` (`journal.ts`, `decide.ts`): files of a folder.
        if (statSync(where).isDirectory()) return !existsSync(join(where, id));
        return !wordIn(lastName(id), readFileSync(where, 'utf8'));
      })
      .map(([id, file]) => `${id} is not in ${file}`);
    expect(wrong).toEqual([]);
  });

  it('every npm command it names runs something that exists', () => {
    const scripts = JSON.parse(readFileSync('package.json', 'utf8')).scripts as Record<string, string>;
    const benches = readFileSync('bench/index.mjs', 'utf8');
    const wrong = [...text.matchAll(/`npm run ([\w:-]+)(?: -- ([\w -]+))?`/g)].filter(
      ([, script, args]) =>
        scripts[script as string] === undefined ||
        (script === 'bench' && (args ?? '').split(' ').some((name) => !benches.includes(`'${name}'`))),
    );
    expect(wrong.map(([command]) => command)).toEqual([]);
  });
});
