import type { Redactor } from '../internal/redact.js';
import type { RequestSummary } from './api-error.js';

// What the send path needs of an answer before it knows whether it is an error: its shape, whether it is the call's
// success answer, and a short excerpt of a body. The mapping of an error answer to a typed error (map-answer.ts,
// with PortalError and the portal's descriptions) is imported only when an error answer arrives, so a bundle
// that splits code keeps it out of the client's first chunk.

/** An answer of the service, read in full, as the error mapping sees it. */
export interface AnswerInfo {
  readonly status: number;
  readonly headers: Headers;
  /** The body as text ('' when empty). */
  readonly bodyText: string;
  /** The bytes of the body read: all of it, or, past a cap, a little more than the cap (reading stopped there). */
  readonly bodyBytes: number;
  /** The body parsed as JSON, or `undefined` when it is not JSON (or is a 2xx body past its cap). */
  readonly json: unknown;
  /** The cap (`maxResponseBytes`) a 2xx body went past: it was not read whole and never parsed. */
  readonly overLimit?: number | undefined;
  /** How many requests of the call may have reached the service, this one's included (see `ResponseMeta.attempts`). */
  readonly attempts?: number | undefined;
  readonly request: RequestSummary;
  /** Whether the fetch used followed a redirect on its own (a custom fetch may ignore `redirect: 'manual'`). */
  readonly redirected?: boolean | undefined;
  /**
   * Replaces the API key in what the error will carry. Applied to parsed values, so escaped echoes are caught; the
   * class, status and codes are decided before it, from the answer as received.
   */
  readonly redact?: Redactor | undefined;
}

const EXCERPT_LENGTH = 300;

/** A short, single-line excerpt of a body, for messages about bodies that are not the error envelope. */
export function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT_LENGTH ? `${flat.slice(0, EXCERPT_LENGTH)}…` : flat;
}

/** What a call counts as its success answer. */
export type SuccessRule =
  /** A 2xx whose JSON body says `success: true` (the e-way bill operation). */
  | 'success-flag'
  /** Any 2xx, unless its body is the error envelope (`success: false`): the operations the spec does not show. */
  | 'any-2xx';

/**
 * Whether an answer is the call's success answer. For `'any-2xx'`, a body of no bytes (a 204) is one; a body that is
 * not JSON, or went past its cap, is not (it becomes an `UnexpectedResponseError`, never `undefined`).
 */
export function isSuccessAnswer(answer: AnswerInfo, rule: SuccessRule): boolean {
  if (answer.status < 200 || answer.status >= 300 || answer.redirected) return false;
  const flag = (answer.json as { success?: unknown } | null | undefined)?.success;
  if (rule === 'success-flag') return flag === true;
  return answer.bodyBytes === 0 || (answer.json !== undefined && flag !== false);
}
