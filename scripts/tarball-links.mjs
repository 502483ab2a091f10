// What a reader of the installed package follows, checked inside it (test-package.mjs runs these on the installed
// tarball, issue 28.11):
// - every link of its Markdown files (README.md, docs/*.md) resolves: an anchor to a heading of its target; a relative
//   link to a file the tarball ships; a link to this repository on GitHub (blob/main or tree/main) to a file that the
//   tarball ships too (the docs travel with the version they describe), or to a repository-only folder listed in
//   REPOSITORY_ONLY; nothing else but the URLs listed in EXTERNAL;
// - every source map's `sources` are files the tarball ships, each map embeds them, and every sourceMappingURL of the
//   code names a shipped map. The build makes no maps today (tsup.config.ts says why): this keeps it so if they return.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/** Repository folders the README links to on GitHub and the tarball intentionally leaves out: runnable examples. */
export const REPOSITORY_ONLY = ['examples/'];
/** External URLs a page may link to on purpose (beside this repository's own). */
export const EXTERNAL = [
  /^https:\/\/keepachangelog\.com\//,
  /^https:\/\/semver\.org\//,
  /^https:\/\/(www\.)?npmjs\.com\//,
  /^https:\/\/opentelemetry\.io\//,
  /^https:\/\/mswjs\.io\//,
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function anchorsOf(markdown) {
  const anchors = new Set();
  const seen = new Map();
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The problems of the links of the Markdown files of the installed package at `dir` (its files: `files`). */
export function linkProblems(dir, files, repositoryBase) {
  const shipped = new Set(files);
  const problems = [];
  const anchorIn = (file, anchor) =>
    anchor === '' || anchorsOf(readFileSync(join(dir, file), 'utf8')).has(decodeURIComponent(anchor));
  for (const page of files.filter((file) => file.endsWith('.md'))) {
    const text = readFileSync(join(dir, page), 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const [target, anchor = ''] = link.split('#');
      let file;
      if (link.startsWith(repositoryBase)) {
        const path = /^(?:blob|tree)\/main\/([^#]*)/.exec(link.slice(repositoryBase.length))?.[1];
        if (path === undefined) {
          problems.push(`${page}: ${link} is not a blob/main or tree/main link`);
          continue;
        }
        if (REPOSITORY_ONLY.some((folder) => path.startsWith(folder))) continue;
        file = path;
      } else if (/^[a-z]+:/.test(link)) {
        if (!EXTERNAL.some((pattern) => pattern.test(link))) problems.push(`${page}: ${link} is not a known URL`);
        continue;
      } else {
        file = target === '' ? page : normalize(join(dirname(page), target));
      }
      if (!shipped.has(file)) problems.push(`${page}: ${link} points at ${file}, which the tarball does not ship`);
      else if (file.endsWith('.md') && !anchorIn(file, anchor)) problems.push(`${page}: ${link}: no such heading`);
    }
  }
  return problems;
}

/** The problems of the source maps of the installed package at `dir`: sources it does not ship, or not embedded. */
export function sourceMapProblems(dir, files) {
  const shipped = new Set(files);
  const problems = [];
  const maps = files.filter((file) => file.endsWith('.map'));
  for (const map of maps) {
    const { sources = [], sourcesContent = [] } = JSON.parse(readFileSync(join(dir, map), 'utf8'));
    sources.forEach((source, index) => {
      const file = relative(dir, join(dir, dirname(map), source));
      if (!shipped.has(file) || !existsSync(join(dir, file)))
        problems.push(`${map}: its source ${source} is not shipped`);
      if (typeof sourcesContent[index] !== 'string') problems.push(`${map}: ${source} is not embedded`);
    });
  }
  for (const code of files.filter((file) => /\.c?js$/.test(file))) {
    const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(dir, code), 'utf8'))?.[1];
    if (url && !url.startsWith('data:') && !shipped.has(normalize(join(dirname(code), url)))) {
      problems.push(`${code}: its sourceMappingURL ${url} is not shipped`);
    }
  }
  return { maps: maps.length, problems };
}
