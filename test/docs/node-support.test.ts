// Issue 28.11: what the docs say about Node is what package.json's engines say, and what the package test runs: every
// "Node.js >= X" in README.md and docs/*.md is the floor of `engines.node` (scripts/test-package.mjs runs the
// installed package on that very version, read from engines by scripts/node22.mjs), and the README says Node 20, which
// runs parts of the SDK, is not supported.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { partnerDocs } from './markdown.js';

const { engineFloor } = (await import(pathToFileURL(resolve('scripts/node22.mjs')).href)) as {
  engineFloor(root: string): string;
};

describe('the supported Node versions', () => {
  const floor = engineFloor('.');

  it('engines.node has a floor the package test can run', () => {
    expect(floor).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('every "Node.js >= X" of the docs is the floor of engines.node', () => {
    const claims = partnerDocs().flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/Node\.js >= ([\d.]+)/g)].map((m) => `${file}: ${m[1]}`),
    );
    expect(claims.length).toBeGreaterThan(0);
    const short = floor.replace(/\.0$/, '');
    expect(claims.filter((claim) => !claim.endsWith(`: ${short}`) && !claim.endsWith(`: ${floor}`))).toEqual([]);
  });

  it('the README names the versions the package test runs and says Node 20 is not supported', () => {
    const readme = readFileSync('README.md', 'utf8').replace(/\s+/g, ' ');
    expect(readme).toContain(`runs the installed package on Node ${floor}`);
    expect(readme).toContain('Node 20 is not supported');
  });
});
