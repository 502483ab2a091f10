import { readdirSync, readFileSync } from 'node:fs';

/** A fenced code block of a Markdown file: its language, its text and the line its fence opens on (1-based). */
export interface CodeBlock {
  readonly file: string;
  readonly line: number;
  readonly lang: string;
  readonly code: string;
}

/** The fenced code blocks of `file` (a path relative to the repository's root), indented fences included. */
export function codeBlocks(file: string): CodeBlock[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  let open: { line: number; lang: string; indent: string; body: string[] } | undefined;
  lines.forEach((text, index) => {
    const fence = /^(\s*)```\s*([\w-]*)/.exec(text);
    if (open === undefined) {
      if (fence) open = { line: index + 1, lang: fence[2] ?? '', indent: fence[1] ?? '', body: [] };
    } else if (fence) {
      const { indent } = open;
      const code = open.body.map((body) => (body.startsWith(indent) ? body.slice(indent.length) : body));
      blocks.push({ file, line: open.line, lang: open.lang, code: code.join('\n') });
      open = undefined;
    } else {
      open.body.push(text);
    }
  });
  return blocks;
}

/** README.md and every docs/*.md: what a partner reads. */
export const partnerDocs = (): string[] => [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
