// Issue 29.7: comments say why, not how much. A measured figure in a comment goes stale without any test noticing
// ("383 descriptions" while the table held 384); such figures live in docs/benchmarks.md, with where they came from.
// This scans the comments of src/ for the shapes those figures took: an approximate quantity ("about 70 ms", "~1 KB"),
// a speed ratio ("3× slower"), a hand count of a table ("383 descriptions"), or a size of a bundle or per call.
// Generated files are left out: their generator writes their counts, and its --check test keeps them current.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FIGURES: readonly [string, RegExp][] = [
  ['an approximate quantity', /\b(about|around|roughly|nearly) \d|~ ?\d/i],
  ['a speed ratio', /\d+(\.\d+)? ?(×|x) (slower|faster)/i],
  ['a count of a table', /\b\d{2,} (descriptions|codes|runs|entries|rows)\b/i],
  [
    'a measured size',
    /\d+(\.\d+)? ?(KiB|KB|kB|MiB|MB)\b[^.]*(min\+gzip|gzipped|bundle|per call|a call|per id|heap|RSS)/,
  ],
];

/** The comment text of each line of a TypeScript file: `// …`, and the lines of `/* … *\/` blocks. */
function comments(text: string): [number, string][] {
  const found: [number, string][] = [];
  let inBlock = false;
  text.split('\n').forEach((line, index) => {
    const trimmed = line.trim();
    if (inBlock || trimmed.startsWith('/*')) {
      found.push([index + 1, trimmed.replace(/^\/?\*+\/?/, '')]);
      inBlock = !trimmed.includes('*/');
    } else {
      const at = line.indexOf('// ');
      if (at >= 0 && !/['"`]/.test(line.slice(0, at).replace(/'[^']*'|"[^"]*"|`[^`]*`/g, ''))) {
        found.push([index + 1, line.slice(at + 3)]);
      }
    }
  });
  return found;
}

describe('the comments of src/ carry no measured figures', () => {
  const files = readdirSync('src', { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join('src', file))
    .filter((file) => !readFileSync(file, 'utf8').startsWith('// GENERATED'));

  it('scans the source', () => {
    expect(files.length).toBeGreaterThan(50);
  });

  it('no comment states a figure that a measurement or a table can change (see docs/benchmarks.md)', () => {
    const found = files.flatMap((file) =>
      comments(readFileSync(file, 'utf8')).flatMap(([line, text]) =>
        FIGURES.filter(([, pattern]) => pattern.test(text)).map(([what]) => `${file}:${line} ${what}: ${text.trim()}`),
      ),
    );
    expect(found).toEqual([]);
  });
});
