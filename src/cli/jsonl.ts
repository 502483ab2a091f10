import { readFile } from 'node:fs/promises';

/** One line of the input file: an item to send, or the reason it cannot be. */
export type InputLine =
  | { readonly line: number; readonly docHashId: string; readonly model: unknown }
  | { readonly line: number; readonly docHashId: string | undefined; readonly code: string; readonly error: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The values of the lines of `text` that are JSON, in order: a torn or foreign line is skipped. */
export function* jsonValues(text: string): Generator<unknown> {
  for (const raw of text.split('\n')) {
    try {
      yield JSON.parse(raw);
    } catch {
      // A line cut by a crash, a blank line, or not ours.
    }
  }
}

/** Reads one input line: `{"docHashId": "...", "model": {...}}` (`doc_hash_id` is accepted too). Never throws. */
export function readInputLine(text: string, line: number): InputLine {
  const bad = (docHashId: string | undefined, code: string, why: string): InputLine => ({
    line,
    docHashId,
    code,
    error: `line ${line} ${why}`,
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return bad(undefined, 'INVALID_JSON', `is not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(value)) return bad(undefined, 'INVALID_LINE', 'must be a JSON object { "docHashId", "model" }');
  const id = value.docHashId ?? value.doc_hash_id;
  if (typeof id !== 'string' || id.trim() === '') {
    return bad(undefined, 'INVALID_LINE', 'has no docHashId (a non-empty string)');
  }
  if (!isObject(value.model)) return bad(id, 'INVALID_LINE', "has no model (the e-way bill's fields as an object)");
  return { line, docHashId: id, model: value.model };
}

/** Reads the input file's non-blank lines. @throws {Error} when the file cannot be read. */
export async function readInput(path: string): Promise<InputLine[]> {
  const text = await readFile(path, 'utf8');
  const lines: InputLine[] = [];
  text.split('\n').forEach((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed !== '') lines.push(readInputLine(trimmed, i + 1));
  });
  return lines;
}

/** What an earlier run left in the output file. */
export interface EarlierResults {
  /** Documents with an e-way bill: skipped. */
  readonly done: ReadonlySet<string>;
  /** Documents whose last attempt may have generated the bill: sent again, a 604 counting as success. */
  readonly uncertain: ReadonlySet<string>;
  /** Whether the file ends in the middle of a line (a run cut while writing): the next write starts a new line. */
  readonly endsMidLine: boolean;
  /** Where and as whom earlier lines were done: `baseUrl` and the key's short hash, as `"<baseUrl> <key>"`. */
  readonly where: ReadonlySet<string>;
}

/** Reads the output file of earlier runs; a missing file is an empty result. Lines that are not JSON are skipped. */
export async function readEarlierResults(path: string): Promise<EarlierResults> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT')
      return { done: new Set(), uncertain: new Set(), endsMidLine: false, where: new Set() };
    throw error;
  }
  const done = new Set<string>();
  const uncertain = new Set<string>();
  const where = new Set<string>();
  for (const value of jsonValues(text)) {
    if (!isObject(value) || typeof value.docHashId !== 'string') continue;
    if (typeof value.baseUrl === 'string' && typeof value.key === 'string') where.add(`${value.baseUrl} ${value.key}`);
    if (value.ok === true) {
      done.add(value.docHashId);
      uncertain.delete(value.docHashId);
    } else if (value.mayHaveSucceeded === true) uncertain.add(value.docHashId);
    // A line that was not sent (a bad line, a repeat) says nothing about an earlier request of the document.
    else if (value.mayHaveSucceeded === false) uncertain.delete(value.docHashId);
  }
  return { done, uncertain, endsMidLine: text !== '' && !text.endsWith('\n'), where };
}
