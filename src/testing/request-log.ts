import { redactAuthorization } from './api-key.js';
import type { Outcome } from './outcome.js';
import { cutText } from './text-cut.js';
import type { MockFault, RecordedRequest } from './types.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** How many requests the log keeps (`service.requests`); the oldest go first. */
export const REQUEST_LOG_MAX_ENTRIES = 10_000;
/** How many of the newest requests keep their body; older entries keep the rest, with `body: undefined`. */
export const REQUEST_LOG_MAX_BODIES = 200;
/** The most characters of a body the log keeps: a longer body is kept as the text of its first 65,536 characters. */
export const REQUEST_LOG_MAX_BODY_CHARS = 64 * 1024;

/**
 * The log of what arrived. Entries are filled in as requests are answered; readers get frozen copies.
 * Its memory is bounded: {@link REQUEST_LOG_MAX_ENTRIES} entries, bodies on the newest
 * {@link REQUEST_LOG_MAX_BODIES} only, each at most {@link REQUEST_LOG_MAX_BODY_CHARS} characters.
 */
export class RequestLog {
  readonly #entries: Mutable<RecordedRequest>[] = [];
  #seq = 0;

  /** Records an arrival and returns its entry, to be completed with {@link RequestLog.answered}. */
  arrived(init: {
    method: string;
    path: string;
    docHashId: string | undefined;
    headers: Headers;
    bodyText: string;
    receivedAt: number;
  }): Mutable<RecordedRequest> {
    const headers: Record<string, string> = {};
    for (const [name, value] of init.headers)
      headers[name] = name === 'authorization' ? redactAuthorization(value) : value;
    const entry: Mutable<RecordedRequest> = {
      seq: ++this.#seq,
      method: init.method,
      path: init.path,
      docHashId: init.docHashId,
      headers: Object.freeze(headers),
      ...keptBody(init.bodyText),
      keyId: undefined,
      companyId: undefined,
      receivedAt: init.receivedAt,
      status: undefined,
      errorCode: undefined,
      fault: undefined,
    };
    this.#entries.push(entry);
    if (this.#entries.length > REQUEST_LOG_MAX_ENTRIES) this.#entries.shift();
    const evicted = this.#entries[this.#entries.length - 1 - REQUEST_LOG_MAX_BODIES];
    if (evicted !== undefined && evicted.bodyKept !== 'evicted') {
      evicted.body = undefined;
      evicted.bodyKept = 'evicted';
    }
    return entry;
  }

  /** Completes an entry with what was answered, and returns a frozen copy of it. */
  answered(entry: Mutable<RecordedRequest>, outcome: Outcome, fault: Readonly<MockFault> | undefined): RecordedRequest {
    entry.fault = fault;
    if (outcome.kind === 'answer' && !outcome.cut) {
      entry.status = outcome.status;
      const code = (parseBody(outcome.body) as { error_code?: unknown } | undefined)?.error_code;
      entry.errorCode = typeof code === 'string' ? code : undefined;
    }
    return Object.freeze({ ...entry });
  }

  /** Frozen copies of every entry, oldest first. */
  snapshot(): readonly RecordedRequest[] {
    return Object.freeze(this.#entries.map((entry) => Object.freeze({ ...entry })));
  }

  clear(): void {
    this.#entries.length = 0;
    this.#seq = 0;
  }
}

/** What the log keeps of a body: the parsed whole up to the cap, else the text of its start. */
function keptBody(text: string): Pick<RecordedRequest, 'body' | 'bodyBytes' | 'bodyKept'> {
  const bodyBytes = utf8Length(text);
  if (text.length <= REQUEST_LOG_MAX_BODY_CHARS) return { body: parseBody(text), bodyBytes, bodyKept: 'whole' };
  return { body: cutText(text, REQUEST_LOG_MAX_BODY_CHARS), bodyBytes, bodyKept: 'truncated' };
}

/** The UTF-8 length of `text`, without encoding it (the log runs under msw as well as on a Node server). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4; // a surrogate pair is one 4-byte character
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
