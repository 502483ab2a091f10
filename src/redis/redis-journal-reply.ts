// The Redis journal's script reply, read back into a record (see JOURNAL_SCRIPT for the fields).
import type { JournalRecord, JournalStatus } from '../journal/journal.js';

/** What every op of the document script answers. */
export interface ScriptReply {
  /** The claim was taken, or the op applied. */
  readonly applied: boolean;
  /** The claim's owner ('' when none). */
  readonly owner: string;
  readonly ownerUntil: number;
  /** Redis's clock, in milliseconds. */
  readonly now: number;
  readonly record: JournalRecord | undefined;
}

const STATUSES: readonly string[] = ['sent-maybe', 'generated', 'refused'] satisfies JournalStatus[];

function json(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

/** Reads the script's reply. @throws {Error} for a reply that is not the script's. */
export function parseReply(reply: unknown): ScriptReply {
  if (!Array.isArray(reply) || reply.length !== 5 || !Array.isArray(reply[4])) {
    throw new Error(`The journal script answered ${JSON.stringify(reply)?.slice(0, 100)}`);
  }
  const [flag, owner, ownerUntil, now, flat] = reply as [unknown, unknown, unknown, unknown, unknown[]];
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(String(flat[i]), String(flat[i + 1]));
  const status = fields.get('st');
  const number = (name: string) => Number(fields.get(name) ?? Number.NaN);
  const record: JournalRecord | undefined =
    status === undefined || !STATUSES.includes(status)
      ? undefined
      : {
          baseUrl: fields.get('u') ?? '',
          docHashId: fields.get('d') ?? '',
          status: status as JournalStatus,
          bodyHash: fields.get('bh') ?? '',
          body: fields.get('body'),
          keyHash: fields.get('kh'),
          attempt: fields.get('a') ?? '',
          sentAt: number('sa'),
          inFlightUntil: number('fu'),
          at: number('at'),
          result: json(fields.get('res')) as JournalRecord['result'],
          error: json(fields.get('err')),
        };
  return {
    applied: Number(flag) === 1,
    owner: String(owner),
    ownerUntil: Number(ownerUntil),
    now: Number(now),
    record,
  };
}
