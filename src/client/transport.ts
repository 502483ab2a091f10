import type { KyInstance } from 'ky';
import type { RequestSummary } from '../errors/api-error.js';
import { type AnswerInfo, excerpt } from '../errors/map-response.js';
import { ConnectionError, TimeoutError } from '../errors/transport-errors.js';
import { abortError } from './abort.js';

/** The most of a body the client reads; anything longer is cut off (the service's answers are small). */
export const MAX_BODY_BYTES = 1024 * 1024;

// Node's error codes for a connection that never carried the request: the service cannot have acted.
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_INVALID_URL',
]);

function causeCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (
    let e = error, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    const inner = (e as { errors?: unknown }).errors;
    for (const item of Array.isArray(inner) ? inner : []) {
      const innerCode = (item as { code?: unknown } | null)?.code;
      if (typeof innerCode === 'string') codes.push(innerCode);
    }
  }
  return codes;
}

/** The innermost error below ky's wrappers, which carry the Request and so the Authorization header. */
function rootCause(error: unknown): unknown {
  let e = error;
  while (e && typeof e === 'object' && 'request' in e && 'cause' in e) e = (e as { cause: unknown }).cause;
  return e;
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      break;
    }
  }
  const bytes = new Uint8Array(Math.min(size, MAX_BODY_BYTES));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.length - offset);
    bytes.set(part, offset);
    offset += part.length;
    if (offset >= bytes.length) break;
  }
  return new TextDecoder().decode(bytes);
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

/** What one attempt needs. */
export interface AttemptInput {
  readonly ky: KyInstance;
  readonly url: string;
  readonly body: string;
  readonly timeout: number | false;
  readonly signal: AbortSignal | undefined;
  readonly request: RequestSummary;
}

/**
 * Sends one request and reads the whole answer. Resolves to the answer whatever its status;
 * rejects with `ConnectionError`, `TimeoutError`, or the caller's `AbortError`.
 */
export async function sendAttempt(input: AttemptInput): Promise<AnswerInfo> {
  const timeoutSignal = input.timeout === false ? undefined : AbortSignal.timeout(input.timeout);
  const signals = [input.signal, timeoutSignal].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length === 0 ? undefined : AbortSignal.any(signals);
  let dispatched = false;
  try {
    const response = await input.ky.post(input.url, {
      body: input.body,
      ...(signal ? { signal } : {}),
      hooks: {
        beforeRequest: [
          () => {
            dispatched = true;
          },
        ],
      },
    });
    const bodyText = await readCapped(response);
    return {
      status: response.status,
      headers: response.headers,
      bodyText,
      json: parseJson(bodyText),
      request: input.request,
    };
  } catch (error) {
    if (input.signal?.aborted) throw abortError(input.signal);
    if (timeoutSignal?.aborted) {
      throw new TimeoutError(input.timeout as number, { mayHaveSucceeded: dispatched, request: input.request });
    }
    const codes = causeCodes(error);
    const notSent = !dispatched || codes.some((code) => NOT_SENT_CODES.has(code));
    const cause = rootCause(error);
    const detail = cause instanceof Error ? cause.message : excerpt(String(cause));
    throw new ConnectionError(
      `Could not reach the service at ${input.request.url}: ${detail}${codes.length ? ` (${codes.join(', ')})` : ''}` +
        (notSent ? '' : '; the request may have been sent, so the service may have acted on it'),
      { mayHaveSucceeded: !notSent, request: input.request, cause },
    );
  }
}
