// Issue 18.5: no import circles between files of src/ (there were two: client/batch -> once -> service-client -> batch,
// and cli/mock-server-command <-> cli/webhook-relay). Every import form counts, type-only ones included, read with
// TypeScript's own pre-processor.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve('src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Strongly connected components of more than one file (Tarjan), each a cycle. */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('the files of src/', () => {
  it('import each other without cycles', () => {
    const files = sourceFiles(SRC);
    const known = new Set(files);
    const graph = new Map<string, string[]>();
    for (const file of files) {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles
        .map((entry) => entry.fileName)
        .filter((name) => name.startsWith('.'))
        .map((name) => resolve(dirname(file), name.replace(/\.js$/, '.ts')))
        .filter((target) => known.has(target));
      graph.set(file, targets);
    }
    expect(graph.size).toBeGreaterThan(50);
    const found = cycles(graph).map((cycle) =>
      cycle
        .map((file) => relative(SRC, file))
        .sort()
        .join(' <-> '),
    );
    expect(found).toEqual([]);
  });
});
