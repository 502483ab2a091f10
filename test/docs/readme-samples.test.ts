// Issue 28.11: every TypeScript sample of the README compiles, as a partner would paste it: with the DOM lib (a
// project that also targets browsers) and without it (Node's types alone). See samples.ts for what a sample sees.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { codeBlocks } from './markdown.js';
import { TYPE_CHECK_TIMEOUT_MS, typeErrors, writeSamples } from './samples.js';

describe('README samples', { timeout: TYPE_CHECK_TIMEOUT_MS }, () => {
  const samples = codeBlocks('README.md').filter((block) => block.lang === 'ts');
  const { dir, files } = writeSamples('readme-samples', samples);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('there are samples to check', () => {
    expect(samples.length).toBeGreaterThan(10);
  });
  it('every ts sample type-checks with the DOM lib', () => {
    expect(typeErrors(dir, files, { dom: true })).toEqual([]);
  });
  it('every ts sample type-checks with Node types alone (no DOM lib)', () => {
    expect(typeErrors(dir, files, { dom: false })).toEqual([]);
  });
});
