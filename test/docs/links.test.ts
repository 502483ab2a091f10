// The links of the pages a reader opens (README.md, CHANGELOG.md, docs/*.md) resolve, checked on the repository in
// seconds: the package test checks the same on the installed tarball, but only minutes into `npm test`, after vitest.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script of the package test, without types.
import { linkProblems } from '../../scripts/tarball-links.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { homepage: string };

describe('the links of README.md, CHANGELOG.md and docs/', () => {
  it('each resolves to a page and a heading that exist, or to a known URL', () => {
    const files = [
      'README.md',
      'CHANGELOG.md',
      ...(readdirSync(`${root}docs`, { recursive: true }) as string[]).map((name) => `docs/${name}`),
    ];
    const problems = (linkProblems as (dir: string, files: string[], base: string) => string[])(
      root,
      files,
      `${manifest.homepage.replace(/#readme$/, '')}/`,
    );
    expect(problems).toEqual([]);
  });

  it("README's links are anchors or absolute URLs: a relative one breaks on the registry's page", () => {
    const readme = readFileSync(`${root}README.md`, 'utf8');
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string);
    expect(links.filter((link) => !/^(#|https:\/\/)/.test(link))).toEqual([]);
  });

  it('the check finds a heading that does not exist', () => {
    const problems = (linkProblems as (dir: string, files: string[], base: string) => string[])(
      `${root}test/docs/fixtures`,
      ['broken-link.md'],
      'https://example.invalid/',
    );
    expect(problems).toEqual(['broken-link.md: broken-link.md#no-such-heading: no such heading']);
  });
});
