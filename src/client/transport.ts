import type { KyInstance } from 'ky';
import type { AnswerInfo } from '../errors/answer.js';
import type { RequestSummary } from '../errors/api-error.js';
import { AbortedAfterSendError, TimeoutError } from '../errors/transport-errors.js';
import { abortError } from '../internal/abort.js';
import type { Redactor } from '../internal/redact.js';
import { connectionFailure } from './transport-failure.js';
import { watchWrite } from './write-tracker.js';

/** The most of a body the client reads; anything longer is cut off (the service's answers are small). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** `work`, or the abort of the attempt if that comes first: a fetch or a body that ignores the signal cannot hang us. */
function raceAbort<T>(work: Promise<T>, aborted: Promise<never>): Promise<T> {
  return Promise.race([work, aborted]);
}

/** One decoder for every answer: `decode` without `{ stream: true }` keeps no state between calls. */
const UTF8 = new TextDecoder();

async function readCapped(response: Response, aborted: Promise<never>): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await raceAbort(reader.read(), aborted);
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
      if (size >= MAX_BODY_BYTES) break;
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  }
  if (size >= MAX_BODY_BYTES) await reader.cancel().catch(() => {});
  const first = chunks[0];
  // The usual answer is one small chunk: decoded as it is, without a copy.
  if (chunks.length === 1 && first && size < MAX_BODY_BYTES) return UTF8.decode(first);
  const bytes = new Uint8Array(Math.min(size, MAX_BODY_BYTES));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.length - offset);
    bytes.set(part, offset);
    offset += part.length;
    if (offset >= bytes.length) break;
  }
  return UTF8.decode(bytes);
}

/** The body parsed as JSON, or `undefined` when it is empty or not JSON. */
export function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The HTTP methods a call can use. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What one attempt needs. */
export interface AttemptInput {
  readonly ky: KyInstance;
  /** The fetch to send with: the client's `fetch` option, or the global one. */
  readonly fetch: typeof globalThis.fetch;
  readonly method: HttpMethod;
  readonly url: string;
  /** The JSON body, or `undefined` for none. */
  readonly body: string | undefined;
  /** This attempt's own headers (the key as read for it, the call's headers); the client's are on the ky instance. */
  readonly headers: Readonly<Record<string, string>>;
  readonly timeout: number | false;
  readonly signal: AbortSignal | undefined;
  readonly request: RequestSummary;
  /** Replaces every copy of the API key in texts and values: in a failure's message, and in the answer's metadata. */
  readonly redact: Redactor;
  /** Called when fetch is called, and again when Node's fetch reports the body written: the request left. */
  readonly onSent?: (() => void) | undefined;
  /** Called when Node's fetch starts writing the request: it may reach the service at any moment now. */
  readonly onLeaving?: (() => void) | undefined;
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
export async function sendAttempt(input: AttemptInput): Promise<AnswerInfo> {
  const caller = input.signal;
  if (caller?.aborted) throw abortError(caller);
  const { onSent, onLeaving } = input;
  const attempt = new AbortController();
  let timedOut = false;
  let rejectAborted: (reason: unknown) => void = () => {};
  const aborted = new Promise<never>((_resolve, reject) => {
    rejectAborted = reject;
  });
  aborted.catch(() => {}); // observed by the races below; never an unhandled rejection
  // Ends the attempt: aborts fetch (and so its socket) and settles every race on `aborted`.
  const end = (reason: unknown) => {
    attempt.abort(reason);
    rejectAborted(reason);
  };
  const onCallerAbort = () => end(caller?.reason);
  caller?.addEventListener('abort', onCallerAbort, { once: true });
  const timer =
    input.timeout === false
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          end(new DOMException('The attempt timed out', 'TimeoutError'));
        }, input.timeout);
  let dispatched = false;
  let unwatch: (() => void) | undefined;
  const sendingFetch: typeof globalThis.fetch = (resource, init) => {
    // Ended (the caller's abort, the timeout) while ky prepared the request: nothing is handed to fetch, nothing sent.
    if (attempt.signal.aborted) return Promise.reject(attempt.signal.reason);
    if (!dispatched && onSent) {
      onSent();
      unwatch = watchWrite(input.method, input.url, { leaving: () => onLeaving?.(), written: onSent });
    }
    dispatched = true;
    // The attempt's signal goes to fetch itself, not through ky: ky would join it to its own with AbortSignal.any,
    // and Node keeps such joined signals long after the call (docs/benchmarks.md, `leak`).
    return raceAbort(input.fetch(resource, { ...init, signal: attempt.signal }), aborted);
  };
  try {
    // Not raced itself: with no retry, timeout or hooks of ky's, only its fetch can keep it waiting, and that is raced.
    const response = await input.ky(input.url, {
      method: input.method,
      body: input.body,
      headers: input.headers,
      fetch: sendingFetch,
      redirect: 'manual',
    });
    const bodyText = await readCapped(response, aborted);
    return {
      status: response.status,
      headers: response.headers,
      bodyText,
      json: parseJson(bodyText),
      request: input.request,
      redirected: response.redirected || response.type === 'opaqueredirect',
      redact: input.redact,
    };
  } catch (error) {
    // Once fetch was called the request may be on its way (a cold connection is written a moment later, and a custom
    // fetch cannot be watched): an abort from then on may hide an answer the service gave (issue 17, finding 1).
    if (caller?.aborted) {
      throw dispatched
        ? new AbortedAfterSendError({ request: input.request, cause: caller.reason })
        : abortError(caller);
    }
    if (timedOut) {
      throw new TimeoutError(input.timeout as number, { mayHaveSucceeded: dispatched, request: input.request });
    }
    throw connectionFailure(error, { dispatched, request: input.request, scrub: input.redact.text });
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onCallerAbort);
    unwatch?.();
  }
}
