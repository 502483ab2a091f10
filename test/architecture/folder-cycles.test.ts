// Folder-level architecture of src/ (issue 10 item 3): no folder imports another that imports it back, directly or
// through others, and src/internal/ imports nothing outside itself. The imports are read with TypeScript's own
// pre-processor (every `import … from`, `import type`, `export … from`, side-effect and dynamic import), not with a
// regular expression, so comments and strings do not count and multi-line imports do.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve('src');
/** The node of src/index.ts, the root entry: it may import every folder (and so no folder may import it). */
const ROOT = '(root)';

/**
 * Cycles left on purpose, each in a folder this change may not edit, with the reason. A cycle is written as its
 * folders in order starting from the alphabetically first (`['errors', 'gst']` is errors -> gst -> errors).
 * Any cycle not listed here fails the test, and so does an entry whose cycle is gone (remove it then).
 * Empty: the tree has no folder cycle since errors <-> gst (the portal catalogue moved to src/internal) and
 * model <-> gst (the spec's ship_to_gstin check moved to src/model) were cut.
 */
const ALLOWED_CYCLES: readonly { readonly cycle: readonly string[]; readonly why: string }[] = [];

interface Edge {
  readonly from: string;
  readonly to: string;
  /** The importing file and the specifier, relative to the repository, for the failure message. */
  readonly via: string;
}

/** The folder node of a file under src/: `src/<folder>/…` -> `<folder>`, src/index.ts -> `(root)`. */
function folderOf(file: string): string {
  const [first = '', ...rest] = relative(SRC, file).split(sep);
  if (rest.length > 0) return first;
  return first === 'index.ts' || first === 'index.js' ? ROOT : first;
}

/** The relative specifiers a source text imports or re-exports, in every form TypeScript knows. */
function importsOf(text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles.map((file) => file.fileName).filter((name) => name.startsWith('.'));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every import across folders of src/, one edge per importing file and specifier. */
function folderEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), specifier);
      if (!target.startsWith(`${SRC}${sep}`)) {
        edges.push({
          from,
          to: `(outside src: ${relative(SRC, target)})`,
          via: `${relative('.', file)}: '${specifier}'`,
        });
        continue;
      }
      const to = folderOf(target);
      if (to !== from) edges.push({ from, to, via: `${relative('.', file)}: '${specifier}'` });
    }
  }
  return edges;
}

/**
 * Every elementary cycle of a directed graph, each rotated to start at its alphabetically first node and listed
 * once. The graph of src/ has about a dozen folders, so a depth-first walk from each node is small and bounded.
 */
function findCycles(edges: readonly Pick<Edge, 'from' | 'to'>[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)?.add(to);
  }
  const nodes = [...next.keys()].sort();
  const cycles: string[][] = [];
  for (const start of nodes) {
    // Only cycles whose smallest node is `start`: each cycle is found from exactly one start, in one rotation.
    const walk = (node: string, path: string[]): void => {
      for (const to of [...(next.get(node) ?? [])].sort()) {
        if (to === start) cycles.push([...path]);
        else if (to > start && !path.includes(to)) walk(to, [...path, to]);
      }
    };
    walk(start, [start]);
  }
  return cycles;
}

const show = (cycle: readonly string[]): string => [...cycle, cycle[0]].join(' -> ');

/** The files that make each edge of a cycle, for a message that says what to change. */
function evidence(cycle: readonly string[], edges: readonly Edge[]): string {
  return cycle
    .map((from, index) => {
      const to = cycle[(index + 1) % cycle.length];
      const vias = edges.filter((edge) => edge.from === from && edge.to === to).map((edge) => `    ${edge.via}`);
      return `  ${from} -> ${to}:\n${vias.join('\n')}`;
    })
    .join('\n');
}

describe('the import reader', () => {
  it('sees import, import type, export-from, side-effect and dynamic imports, across lines, and not comments', () => {
    const text = [
      "import { a } from '../errors/a.js';",
      "import type { B } from '../gst/b.js';",
      'import {',
      '  c,',
      '  d,',
      "} from '../model/c.js';",
      "export * from '../webhooks/d.js';",
      "export { e } from '../testing/e.js';",
      "import '../throttle/side-effect.js';",
      "const lazy = () => import('../client/lazy.js');",
      "// import { x } from '../cli/commented.js';",
      "/* export { y } from '../redis/commented.js'; */",
      'const text = "import { z } from \'../cli/in-a-string.js\'";',
      "import * as z from 'zod';",
    ].join('\n');
    expect(importsOf(text)).toEqual([
      '../errors/a.js',
      '../gst/b.js',
      '../model/c.js',
      '../webhooks/d.js',
      '../testing/e.js',
      '../throttle/side-effect.js',
      '../client/lazy.js',
    ]);
  });
});

describe('the cycle finder', () => {
  it('finds a two-folder cycle, a longer one, and nothing in a graph without cycles', () => {
    const edge = (from: string, to: string) => ({ from, to });
    expect(findCycles([edge('gst', 'errors'), edge('errors', 'gst'), edge('gst', 'model')])).toEqual([
      ['errors', 'gst'],
    ]);
    expect(findCycles([edge('testing', 'client'), edge('client', 'gst'), edge('gst', 'testing')])).toEqual([
      ['client', 'gst', 'testing'],
    ]);
    expect(
      findCycles([edge('(root)', 'client'), edge('client', 'errors'), edge('gst', 'errors'), edge('client', 'gst')]),
    ).toEqual([]);
  });

  it('lists every cycle once, also when two cycles share folders', () => {
    const edges = [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'a' },
      { from: 'b', to: 'c' },
      { from: 'c', to: 'a' },
    ];
    expect(findCycles(edges).map(show)).toEqual(['a -> b -> a', 'a -> b -> c -> a']);
  });
});

describe('the folders of src/', () => {
  const edges = folderEdges();

  it('read a real graph (the root entry imports the folders)', () => {
    const fromRoot = new Set(edges.filter((edge) => edge.from === ROOT).map((edge) => edge.to));
    for (const folder of ['client', 'errors', 'model', 'throttle']) expect(fromRoot, folder).toContain(folder);
  });

  it('import each other without cycles, except the allow-listed ones', () => {
    const allowed = new Set(ALLOWED_CYCLES.map(({ cycle }) => show(cycle)));
    const found = findCycles(edges).filter((cycle) => !allowed.has(show(cycle)));
    const message = found.map((cycle) => `${show(cycle)}\n${evidence(cycle, edges)}`).join('\n\n');
    expect(found.map(show), `folder cycles in src/:\n${message}`).toEqual([]);
  });

  it('still have every allow-listed cycle (an entry for a cycle that is gone must be removed)', () => {
    const found = new Set(findCycles(edges).map(show));
    const stale = ALLOWED_CYCLES.map(({ cycle }) => show(cycle)).filter((cycle) => !found.has(cycle));
    expect(stale).toEqual([]);
  });

  it('never import from outside src/', () => {
    expect(edges.filter((edge) => edge.to.startsWith('(outside')).map((edge) => edge.via)).toEqual([]);
  });

  it('have an internal/ folder that imports nothing outside itself', () => {
    const out = edges.filter((edge) => edge.from === 'internal').map((edge) => `${edge.via} (-> ${edge.to})`);
    expect(out).toEqual([]);
  });
});

describe('the testing kit', () => {
  it('imports other folders only through their public module (<folder>/index.ts) or src/internal/', () => {
    const reached = folderEdges().filter((edge) => edge.from === 'testing');
    expect(reached.length).toBeGreaterThan(0);
    const inside = reached.filter((edge) => {
      const specifier = edge.via.slice(edge.via.indexOf("'") + 1, -1);
      return !(specifier.endsWith('/index.js') || edge.to === 'internal');
    });
    expect(inside.map((edge) => edge.via)).toEqual([]);
  });
});
