import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|(?:^|\n)\s*import\s+'([^']+)'/g;

/** Every package (bare specifier) reachable through value imports from a source file. */
function packagesReachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const queue = [resolve(entry)];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (/^\s*(?:import|export)\s+type\s/.test(match[0].trimStart())) continue; // erased at build time
      const specifier = match[1] ?? match[2] ?? '';
      if (!specifier.startsWith('.')) packages.add(specifier);
      else {
        const target = join(dirname(file), specifier.replace(/\.js$/, '.ts'));
        if (existsSync(target)) queue.push(target);
      }
    }
  }
  return packages;
}

describe('where msw is loaded', () => {
  it('is never reached from the main entry', () => {
    expect([...packagesReachable('src/index.ts')].filter((p) => p.startsWith('msw'))).toEqual([]);
  });

  it('is never reached from the CLI, so the mock server runs without msw installed', () => {
    expect([...packagesReachable('src/cli/index.ts')].filter((p) => p.startsWith('msw'))).toEqual([]);
  });

  it('is never imported statically by the testing subpath: only its loaders reach it, by a dynamic import or require', () => {
    expect([...packagesReachable('src/testing/index.ts')].filter((p) => p.startsWith('msw'))).toEqual([]);
    const esm = readFileSync('src/testing/msw-loader.ts', 'utf8');
    const cjs = readFileSync('src/testing/msw-loader.cjs.ts', 'utf8');
    expect(esm).toMatch(/await import\('msw'\)/);
    expect(cjs).toMatch(/require\('msw'\)/);
  });
});
