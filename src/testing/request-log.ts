import { redactAuthorization } from './api-key.js';
import type { Outcome } from './outcome.js';
import type { MockFault, RecordedRequest } from './types.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The log of what arrived. Entries are filled in as requests are answered; readers get frozen copies. */
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
      body: parseBody(init.bodyText),
      keyId: undefined,
      companyId: undefined,
      receivedAt: init.receivedAt,
      status: undefined,
      errorCode: undefined,
      fault: undefined,
    };
    this.#entries.push(entry);
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

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
