// One HTTP exchange of an attempt: ky sends the request through a fetch that tells when it leaves, and the answer is
// read whole (up to its cap). What the exchange fails with is built here, once, knowing whether an earlier request of
// the call may have reached the service.
import type { KyInstance, Options } from 'ky';
import type { AnswerInfo } from '../errors/answer.js';
import { AbortedAfterSendError, TimeoutError } from '../errors/transport-errors.js';
import { abortError } from '../internal/abort.js';
import type { Redactor } from '../internal/redact.js';
import type { ReleaseSlot } from '../throttle/rate-limiter.js';
import type { Call } from './call.js';
import { connectionFailure } from './transport-failure.js';
import { watchWrite } from './write-tracker.js';

/**
 * The most of an error answer's body (not 2xx) the client reads, whatever `maxResponseBytes` says: an error envelope
 * is small, and what an error keeps of a page is 64 KiB, so a huge error page cannot fill memory. Past it the body
 * is cut, and the error is mapped from what was read.
 */
export const MAX_ERROR_BODY_BYTES = 1024 * 1024;

/**
 * The end of one attempt: its controller (whose signal fetch gets), whether its timeout ended it, and the race of each
 * step against that end. One object per attempt, which is also the listener on the caller's signal (`handleEvent`):
 * no promise that exists only to be raced, and no closure per step (issue 29, item 8).
 */
class AttemptEnd {
  readonly controller = new AbortController();
  timedOut = false;
  #ended = false;
  #reason: unknown;
  /** Rejects the step being raced now (a step at a time: they run one after the other). */
  #rejectStep: ((reason: unknown) => void) | undefined = undefined;

  constructor(readonly caller: AbortSignal | undefined) {}

  /** Ends the attempt: aborts fetch (and so its socket) and rejects the step being raced, and every later one. */
  end(reason: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#reason = reason;
    this.controller.abort(reason);
    this.#rejectStep?.(reason);
    this.#rejectStep = undefined;
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.end(this.caller?.reason);
  }

  timeout(): void {
    this.timedOut = true;
    this.end(new DOMException('The attempt timed out', 'TimeoutError'));
  }

  /** `work`, or the end of the attempt if that comes first: a fetch or a body that ignores the signal cannot hang us. */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.#ended) {
      work.catch(() => {});
      return Promise.reject(this.#reason);
    }
    return new Promise<T>((resolve, reject) => {
      this.#rejectStep = reject;
      work.then(resolve, reject);
    });
  }
}

/** One decoder for every answer: `decode` without `{ stream: true }` keeps no state between calls. */
const UTF8 = new TextDecoder();

/** A body as read: its text (at most `limit` bytes of it), the bytes read, and whether it went past `limit`. */
interface ReadBody {
  readonly text: string;
  readonly bytes: number;
  readonly overLimit: boolean;
}

/** Reads a body up to `limit` bytes; past it, stops reading and lets the connection go (the rest is never held). */
async function readCapped(response: Response, limit: number, attempt: AttemptEnd): Promise<ReadBody> {
  if (!response.body) return { text: '', bytes: 0, overLimit: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await attempt.race(reader.read());
      if (done) break;
      size += value.byteLength;
      if (size > limit) break;
      chunks.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  }
  const overLimit = size > limit;
  if (overLimit) await reader.cancel().catch(() => {});
  const first = chunks[0];
  // The usual answer is one small chunk: decoded as it is, without a copy.
  if (chunks.length === 1 && first && !overLimit) return { text: UTF8.decode(first), bytes: size, overLimit };
  const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { text: UTF8.decode(bytes), bytes: size, overLimit };
}

/**
 * The body's length in bytes when the runtime's fetch reads it as the service sent it (no `Content-Encoding`, a valid
 * `Content-Length`), or `undefined`. Node's fetch fails a body that does not match its `Content-Length`.
 */
function plainLength(response: Response): number | undefined {
  const encoding = response.headers.get('content-encoding');
  if (encoding !== null && encoding.trim().toLowerCase() !== 'identity') return undefined;
  const length = response.headers.get('content-length');
  return length !== null && /^\d{1,15}$/.test(length) ? Number(length) : undefined;
}

/**
 * Reads an answer of the runtime's own fetch: one whose known length is within `limit` in one read (no reader, no race
 * per chunk), any other as {@link readCapped} does. Only for the runtime's fetch, which ends the body on the attempt's
 * abort; a custom fetch's body may ignore it, and only a reader can be cancelled then.
 */
async function readRuntimeBody(response: Response, limit: number, attempt: AttemptEnd): Promise<ReadBody> {
  const length = response.body ? plainLength(response) : undefined;
  if (length === undefined || length > limit) return readCapped(response, limit, attempt);
  const bytes = await attempt.race(response.arrayBuffer());
  return { text: UTF8.decode(bytes), bytes: bytes.byteLength, overLimit: false };
}

/** The body parsed as JSON, or `undefined` when it is empty (or white space) or not JSON. */
export function parseJson(text: string): unknown {
  // JSON.parse throws on an empty or white-space body as on any other text that is not JSON: no trimmed copy first.
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * What ky is given for one attempt. For a `fetch` option: the whole request (method, headers, body, no redirects
 * followed), which that fetch receives as ky's `Request`. For the runtime's own fetch, which is handed the attempt's
 * headers and body directly (see `sendingFetch`): the method alone. A body given to ky becomes a `ReadableStream` in
 * its `Request` that nothing reads, and a headers record is copied into three `Headers` (ky's merge, its check for a
 * content type, its `Request`): CPU for every call that the request on the wire does not need (docs/benchmarks.md,
 * "The CPU of a call").
 */
function kyOptions(
  runtime: boolean,
  call: Call,
  headers: Readonly<Record<string, string>>,
  fetch: typeof globalThis.fetch,
): Options {
  return runtime
    ? { method: call.method, fetch }
    : { method: call.method, body: call.body, headers, fetch, redirect: 'manual' };
}

/**
 * Sends one request and reads the whole answer. Resolves to the answer whatever its status (a 3xx included: a call
 * never follows a redirect); rejects with `ConnectionError`, `TimeoutError`, the caller's `AbortError` before the
 * request was handed to fetch, or `AbortedAfterSendError` after. The timeout
 * and the caller's signal end the attempt even when a custom fetch, or the body it returns, ignores them.
 *
 * Hand-written rather than `AbortSignal.any` + `AbortSignal.timeout`: the attempt's own controller, timer and the one
 * listener on the caller's signal are all removed when the attempt settles, so a long-lived caller signal gathers
 * nothing, and an answered request holds no timer (issue 9, finding 5).
 */
export async function exchange(
  http: {
    readonly ky: KyInstance;
    readonly fetch: typeof globalThis.fetch;
    /** Whether `fetch` is the runtime's own (no `fetch` option). */
    readonly runtime: boolean;
  },
  call: Call,
  headers: Readonly<Record<string, string>>,
  redact: Redactor,
  release: ReleaseSlot | undefined,
  earlierSend: boolean,
): Promise<AnswerInfo> {
  const caller = call.signal;
  const request = call.request;
  if (caller?.aborted)
    throw earlierSend ? new AbortedAfterSendError({ request, cause: caller.reason }) : abortError(caller);
  const onSent = release?.sent;
  const onLeaving = release?.leaving;
  const ending = new AttemptEnd(caller);
  caller?.addEventListener('abort', ending, { once: true });
  // A timer of its own (not a line shared by the attempts of one timeout length, tried in issue 29's third session):
  // a partner's test with fake timers and a real `performance.now()` (vitest's default) moves this one as it moves
  // every other, which a shared line keyed to a clock of its own could not promise.
  const timer = call.timeout === false ? undefined : setTimeout(() => ending.timeout(), call.timeout);
  let dispatched = false;
  let unwatch: (() => void) | undefined;
  const sendingFetch: typeof globalThis.fetch = (resource, init) => {
    // Ended (the caller's abort, the timeout) while ky prepared the request: nothing is handed to fetch, nothing sent.
    const { signal } = ending.controller;
    if (signal.aborted) return Promise.reject(signal.reason);
    const first = !dispatched && onSent !== undefined;
    let writing = false;
    if (first) {
      const leaving = () => {
        writing = true;
        onLeaving?.();
      };
      unwatch = watchWrite(call.method, call.url, { leaving, written: onSent });
      // Reported after the watch is set up, right before fetch: the limiter spaces the key's next request from this
      // moment, and the first watch of a process loads node:diagnostics_channel (on Bun, 1-11 ms idle, more under load).
      onSent();
    }
    dispatched = true;
    // The attempt's signal goes to fetch itself, not through ky: ky would join it to its own with AbortSignal.any,
    // and Node keeps such joined signals long after the call (docs/benchmarks.md, `leak`).
    // The runtime's own fetch gets ky's request as its URL and init, with the attempt's headers and body as they are
    // (ky's Request carries neither: see `kyOptions`): given a Request and an init, fetch builds a second Request from
    // the first (its body stream taken over), which cost more CPU per call than ky's own work (docs/benchmarks.md,
    // "What ky costs"). The request on the wire is the same; a `fetch` option still gets ky's whole Request.
    const sending =
      http.runtime && resource instanceof Request
        ? http.fetch(resource.url, {
            ...init,
            method: resource.method,
            headers,
            body: call.body,
            redirect: 'manual',
            signal,
          })
        : http.fetch(resource, { ...init, signal });
    const answer = ending.race(sending);
    // Where no write was seen starting (Bun, Deno, workerd, a custom fetch), the request is in the runtime's hands once
    // fetch returns: reported again, so a pause of this process between the report above and the runtime taking the
    // request (tens of ms on a loaded machine) cannot bring the key's next request closer. Node's fetch reports the write
    // (`leaving()` during the call, then `written`), which comes later still.
    if (first && !writing) onSent?.();
    return answer;
  };
  try {
    // Not raced itself: with no retry, timeout or hooks of ky's, only its fetch can keep it waiting, and that is raced.
    const response = await http.ky(call.url, kyOptions(http.runtime, call, headers, sendingFetch));
    const ok = response.status >= 200 && response.status < 300;
    const limit = ok ? call.maxResponseBytes : MAX_ERROR_BODY_BYTES;
    const body = await (http.runtime ? readRuntimeBody : readCapped)(response, limit, ending);
    return {
      status: response.status,
      headers: response.headers,
      bodyText: body.text,
      bodyBytes: body.bytes,
      // A 2xx cut at its cap is never parsed: the part read may be JSON of its own, which is not the answer.
      json: body.overLimit && ok ? undefined : parseJson(body.text),
      overLimit: body.overLimit && ok ? limit : undefined,
      request,
      redirected: response.redirected || response.type === 'opaqueredirect',
      redact,
    };
  } catch (error) {
    // Once fetch was called the request may be on its way (a cold connection is written a moment later, and a custom
    // fetch cannot be watched): an abort from then on may hide an answer the service gave (issue 17, finding 1).
    if (caller?.aborted) {
      throw dispatched || earlierSend
        ? new AbortedAfterSendError({ request, cause: caller.reason })
        : abortError(caller);
    }
    if (ending.timedOut)
      throw new TimeoutError(call.timeout as number, { mayHaveSucceeded: dispatched, request, earlierSend });
    throw connectionFailure(error, { dispatched, request, scrub: redact.text, earlierSend });
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', ending);
    unwatch?.();
  }
}
