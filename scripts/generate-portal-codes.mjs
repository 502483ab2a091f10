#!/usr/bin/env node
// Generates src/internal/portal-error-codes.ts from the NIC e-way bill portal's error list (JSON), keeping every
// description exactly as published, and src/internal/portal-error-categories.ts, the codes' categories alone (what
// PortalError needs when it is made; the descriptions are imported on the first error answer). Run from the
// repository root:
//   node scripts/generate-portal-codes.mjs [path/to/ewaybill-portal-error-codes.json]
//   node scripts/generate-portal-codes.mjs --check [path]   (exits 1 when a TypeScript file is out of date)
// The default input is src/gst/data/ewaybill-portal-error-codes.json, the repository's copy of the project's shared
// data (kept in the repository so CI can check for drift offline: test/gst/portal-catalogue.test.ts).
// The output lives in src/internal/ because both src/errors (PortalError) and src/gst (describePortalError) read it,
// and src/errors must not import src/gst (test/architecture/folder-cycles.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const args = process.argv.slice(2);
const check = args.includes('--check');
const inputArg = args.find((arg) => arg !== '--check');
const input = resolve(inputArg ?? 'src/gst/data/ewaybill-portal-error-codes.json');
const output = resolve('src/internal/portal-error-codes.ts');
const categoriesOutput = resolve('src/internal/portal-error-categories.ts');
const LINE_WIDTH = 120;

function fail(message) {
  console.error(`generate-portal-codes: ${message}`);
  process.exit(1);
}

const data = JSON.parse(readFileSync(input, 'utf8'));
if (typeof data.source !== 'string') fail('the input has no "source" string');
const categories = Object.keys(data.categories ?? {});
if (categories.length === 0) fail('the input has no "categories"');
const entries = Object.entries(data.codes ?? {});
for (const [code, entry] of entries) {
  if (!/^[1-9]\d*$/.test(code)) fail(`code ${JSON.stringify(code)} is not a positive integer`);
  if (typeof entry.description !== 'string') fail(`code ${code} has no description`);
  if (!categories.includes(entry.category)) fail(`code ${code} has an unknown category: ${entry.category}`);
}
entries.sort(([a], [b]) => Number(a) - Number(b));

// Categories read from an integrator's side, where the source list's category says what the portal meant but not
// what the partner should do. Each override names its reason; the generated file lists them.
const CATEGORY_OVERRIDES = {
  105: [
    'retryable',
    "the service's session with the portal is invalid: the service renews it, so a later try may pass",
  ],
  106: ['retryable', "the service's session with the portal expired: the service renews it, so a later try may pass"],
  238: [
    'retryable',
    "the service's portal auth token is invalid or expired: the service renews it, so a later try may pass",
  ],
};
for (const [code, [category]] of Object.entries(CATEGORY_OVERRIDES)) {
  const entry = data.codes[code];
  // A list without the code (a test's small list) has nothing to override.
  if (entry === undefined || !categories.includes(category)) continue;
  entry.sourceCategory = entry.category;
  entry.category = category;
}
const overridden = entries.filter(([, entry]) => entry.sourceCategory !== undefined).map(([code]) => code);
const corrected = Array.isArray(data.corrections?.codes) ? data.corrections.codes : [];
const added = entries.filter(([, entry]) => typeof entry.source === 'string').map(([code]) => code);

// Single quotes, unless the text has more single than double quotes (the formatter's rule, so its output is stable).
function quote(text) {
  const count = (mark) => text.split(mark).length - 1;
  const mark = count("'") > count('"') ? '"' : "'";
  return `${mark}${text.replaceAll('\\', '\\\\').replaceAll(mark, `\\${mark}`)}${mark}`;
}
// Wraps a comment's text at the line width, after the given prefix.
function comment(text, prefix = ' * ') {
  const lines = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && prefix.length + line.length + 1 + word.length > LINE_WIDTH) {
      lines.push(`${prefix}${line}`);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, `${prefix}${line}`].join('\n');
}
function entryLines(code, { description, category, sourceCategory, source }) {
  const reason = `${sourceCategory} in the source list; ${CATEGORY_OVERRIDES[code]?.[1]}`;
  const note = sourceCategory === undefined ? '' : `${comment(reason, '  // ')}\n`;
  // A code added after the list was compiled names its own source.
  const origin = typeof source === 'string' ? `${comment(`Source: ${source}.`, '  // ')}\n` : '';
  return `${origin}${note}${entryBody(code, description, category)}`;
}
function entryBody(code, description, category) {
  const oneLine = `  ${code}: { description: ${quote(description)}, category: ${quote(category)} },`;
  if (oneLine.length <= LINE_WIDTH) return oneLine;
  const property = `    description: ${quote(description)},`;
  const described = property.length <= LINE_WIDTH ? property : `    description:\n      ${quote(description)},`;
  return `  ${code}: {\n${described}\n    category: ${quote(category)},\n  },`;
}

const text = `// GENERATED by scripts/generate-portal-codes.mjs from ewaybill-portal-error-codes.json: do not edit by hand.
// To regenerate: node scripts/generate-portal-codes.mjs [path to the JSON]; --check tells whether this file is current.
/*
${comment(`Source: ${data.source}.`)}
 * The descriptions are kept exactly as the portal publishes them, typos and double spaces included, so that they can
 * be searched for in the portal's own documents. ${entries.length} codes.
${corrected.length === 0 ? '' : `${comment(`Corrected in the source: ${corrected.join(', ')}. ${data.corrections.note ?? ''}`.trim())}\n`}${added.length === 0 ? '' : `${comment(`Added after the source list was compiled, each with its own source: ${added.join(', ')}.`)}\n`}${comment(`Categories changed from the source list for integrators: ${overridden.join(', ') || 'none'} (see the comment at each).`)}
 */

/** The categories of the portal's error codes, in the order of the source list. */
export const PORTAL_ERROR_CATEGORIES = [${categories.map(quote).join(', ')}] as const;

/** A value of {@link PORTAL_ERROR_CATEGORIES}. */
export type PortalErrorCategory = (typeof PORTAL_ERROR_CATEGORIES)[number];

/** What each category means, as the source list defines it. */
export const PORTAL_ERROR_CATEGORY_MEANINGS: Readonly<Record<PortalErrorCategory, string>> = Object.freeze({
${categories.map((name) => `  ${name}: ${quote(data.categories[name])},`).join('\n')}
});

/** One code of the portal's list. */
export interface PortalErrorCodeEntry {
  readonly description: string;
  readonly category: PortalErrorCategory;
}

/** The portal's error codes: code -> the portal's description and a category. */
export const PORTAL_ERROR_CODES: Readonly<Record<number, PortalErrorCodeEntry>> = {
${entries.map(([code, entry]) => entryLines(code, entry)).join('\n')}
};
`;

// The categories alone, one character per code below DENSE_LIMIT (its category's index, '-' for a code not in the
// list), and the few codes above it by name: 0.2 KiB of a min+gzip bundle instead of the descriptions' 7.
const DENSE_LIMIT = 1000;
const dense = entries.filter(([code]) => Number(code) < DENSE_LIMIT);
const sparse = entries.filter(([code]) => Number(code) >= DENSE_LIMIT);
const firstCode = dense.length === 0 ? 0 : Number(dense[0][0]);
const lastCode = dense.length === 0 ? -1 : Number(dense.at(-1)[0]);
let letters = '';
for (let code = firstCode; code <= lastCode; code++) {
  const entry = data.codes[code];
  letters += entry === undefined ? '-' : String(categories.indexOf(entry.category));
}
const LETTER_LINE = 100;
const letterLines = [];
for (let at = 0; at < letters.length; at += LETTER_LINE)
  letterLines.push(`  '${letters.slice(at, at + LETTER_LINE)}',`);

const categoriesText = `// GENERATED by scripts/generate-portal-codes.mjs from ewaybill-portal-error-codes.json: do not edit by hand.
// The category of each code of portal-error-codes.ts, without its description: PortalError reads it when it is made,
// while the descriptions are imported when the client maps its first error answer, so a bundle that splits code keeps
// them out of the client's first chunk. ${entries.length} codes.
import type { PortalErrorCategory } from './portal-error-codes.js';

/** The categories in the order of PORTAL_ERROR_CATEGORIES: a code's digit below is an index into this list. */
const NAMES: readonly PortalErrorCategory[] = [${categories.map(quote).join(', ')}];

/** The first code of {@link DIGITS}. */
const FIRST_CODE = ${firstCode};

/** One character per code from FIRST_CODE up: the index of its category in NAMES, or '-' for a code not in the list. */
const DIGITS = [
${letterLines.join('\n')}
].join('');

/** The codes from ${DENSE_LIMIT} up, with the index of their category. */
const SPARSE: Readonly<Partial<Record<number, number>>> = { ${sparse.map(([code, entry]) => `${code}: ${categories.indexOf(entry.category)}`).join(', ')} };

/** The category of a portal code; \`'other'\` for a code not in the list. */
export function portalErrorCategory(code: number): PortalErrorCategory {
  const digit = DIGITS[code - FIRST_CODE];
  const index = digit !== undefined && digit !== '-' ? Number(digit) : SPARSE[code];
  return (index === undefined ? undefined : NAMES[index]) ?? 'other';
}
`;

const outputs = [
  [output, text],
  [categoriesOutput, categoriesText],
];
if (check) {
  for (const [path, expected] of outputs) {
    let current = '';
    try {
      current = readFileSync(path, 'utf8');
    } catch {}
    if (current !== expected) fail(`${path} is out of date: run node scripts/generate-portal-codes.mjs`);
  }
  console.log(`${output} is current (${entries.length} codes), and so is ${categoriesOutput}`);
} else {
  for (const [path, contents] of outputs) writeFileSync(path, contents);
  console.log(`wrote ${output} and ${categoriesOutput}: ${entries.length} codes in ${categories.length} categories`);
}
