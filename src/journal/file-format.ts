// The file journal's lines: `<json>\t<crc32 of json, 8 hex>\n`. Each line is the whole state of one document (or its
// deletion), so reading the file is "the last line of each document wins", and a line cut anywhere, or one whose
// checksum fails, is skipped: it was never acknowledged (its write had not returned when the process died).
import { crc32 } from 'node:zlib';
import type { JournalRecord } from './journal.js';
import { type DocumentState, documentKey } from './records.js';

/** A line of the file. */
export type JournalLine =
  /** The file's first line: its format. */
  | { readonly t: 'h'; readonly v: 1 }
  /** A document's state. */
  | { readonly t: 's'; readonly r: JournalRecord; readonly b?: JournalRecord | undefined }
  /** A document without a record any more (an attempt that was never sent, and nothing before it). */
  | { readonly t: 'd'; readonly u: string; readonly d: string };

const checksum = (json: string): string => crc32(json).toString(16).padStart(8, '0');

/** One line of the file, with its newline. */
export function encodeLine(line: JournalLine): string {
  const json = JSON.stringify(line);
  return `${json}\t${checksum(json)}\n`;
}

/** The line of a document's state (or deletion). */
export function stateLine(baseUrl: string, docHashId: string, state: DocumentState | undefined): string {
  if (state === undefined) return encodeLine({ t: 'd', u: baseUrl, d: docHashId });
  return encodeLine(state.before ? { t: 's', r: state.record, b: state.before } : { t: 's', r: state.record });
}

const isRecord = (value: unknown): value is JournalRecord => {
  const r = value as Partial<JournalRecord> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.baseUrl === 'string' &&
    typeof r.docHashId === 'string' &&
    (r.status === 'sent-maybe' || r.status === 'generated' || r.status === 'refused') &&
    typeof r.attempt === 'string' &&
    typeof r.at === 'number'
  );
};

/** What a file holds. */
export interface ReadJournal {
  readonly states: Map<string, DocumentState>;
  /** Lines skipped: torn by a crash, or damaged. */
  readonly skipped: number;
  /** The bytes up to the end of the last whole line: a torn line after them is cut off when the file is opened. */
  readonly wholeBytes: number;
}

/** Reads a file's text: never throws; a line that is torn, damaged or not the journal's is skipped. */
export function readJournalText(text: string): ReadJournal {
  const states = new Map<string, DocumentState>();
  let skipped = 0;
  const lines = text.split('\n');
  // What follows the last newline was cut by a crash (a line counts only once its newline is written), or is empty.
  const torn = lines.pop() ?? '';
  if (torn !== '') skipped += 1;
  for (const raw of lines) {
    if (raw === '') continue;
    const tab = raw.lastIndexOf('\t');
    const json = tab < 0 ? '' : raw.slice(0, tab);
    if (tab < 0 || raw.slice(tab + 1) !== checksum(json)) {
      skipped += 1;
      continue;
    }
    let line: JournalLine;
    try {
      line = JSON.parse(json) as JournalLine;
    } catch {
      skipped += 1;
      continue;
    }
    if (line.t === 's' && isRecord(line.r)) {
      const before = isRecord(line.b) ? line.b : undefined;
      states.set(documentKey(line.r.baseUrl, line.r.docHashId), { record: normalised(line.r), before });
    } else if (line.t === 'd' && typeof line.u === 'string' && typeof line.d === 'string') {
      states.delete(documentKey(line.u, line.d));
    } else if (line.t !== 'h') skipped += 1;
  }
  return { states, skipped, wholeBytes: Buffer.byteLength(text) - Buffer.byteLength(torn) };
}

/** A record as read back: JSON drops `undefined` fields; the type promises them. */
function normalised(record: JournalRecord): JournalRecord {
  return {
    ...record,
    body: record.body,
    keyHash: record.keyHash,
    result: record.result,
    error: record.error,
  };
}
