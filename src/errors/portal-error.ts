import { portalDescription } from '../internal/portal-descriptions.js';
import { portalErrorCategory } from '../internal/portal-error-categories.js';
import type { PortalErrorCategory } from '../internal/portal-error-codes.js';
import { ApiError, type ApiErrorInit } from './api-error.js';

const PORTAL_ERROR_PATTERN = /^PORTAL_ERROR_(\d+)$/;
/** The portal's code for "E-way bill(s) are already generated for the same document number". */
const ALREADY_GENERATED = 604;

/** The portal's numeric code in an `error_code` of the form `PORTAL_ERROR_{n}`, or `undefined`. */
export function parsePortalCode(errorCode: string | undefined): number | undefined {
  const match = errorCode === undefined ? null : PORTAL_ERROR_PATTERN.exec(errorCode);
  const code = match ? Number(match[1]) : undefined;
  // A code beyond 2^53 cannot be held exactly: the answer stays an ApiError with its error_code as received.
  return code !== undefined && Number.isSafeInteger(code) ? code : undefined;
}

const flat = (text: string): string => text.replace(/[\s_]+/g, '').toLowerCase();

/** Whether the body carried a message of the service that says more than the code itself. */
function serviceExplained(body: unknown, portalCode: number): boolean {
  const said = (body as { message?: unknown } | null | undefined)?.message;
  if (typeof said !== 'string') return false;
  return !['', String(portalCode), `portalerror${portalCode}`].includes(flat(said));
}

// A bare "PORTAL_ERROR_238" in a log is what partners cannot act on; a message of the service is kept as it is.
function messageOf(init: ApiErrorInit & { portalCode: number }, description: string | undefined): string {
  if (description === undefined || serviceExplained(init.body, init.portalCode)) return init.message;
  return `${init.message} (portal error ${init.portalCode}: ${description})`;
}

/**
 * The government e-way bill portal rejected the request: `error_code` `PORTAL_ERROR_{n}`.
 * `portalCode` is the portal's own numeric code (for example 604, "already generated"); `portalMessage`, `category`
 * and `retryable` come from the portal's published list of codes (see `describePortalError`).
 *
 * `message` is the service's message. When the service gave none, or one that only repeats the code, the portal's
 * description is appended: `"… (portal error 238: Invalid auth token)"`.
 *
 * @example
 * catch (error) {
 *   if (error instanceof PortalError && error.category === 'retryable') scheduleRetry();
 * }
 */
export class PortalError extends ApiError {
  static override readonly code: string = 'PORTAL_ERROR';
  override name = 'PortalError';
  /** The portal's numeric error code, parsed from `PORTAL_ERROR_{n}`. */
  readonly portalCode: number;
  /**
   * The portal's own description of the code, worded as published; `undefined` for a code not in the list. The client
   * loads the list before it maps its first error answer, so every PortalError it throws has it. A PortalError made by
   * hand has it once the list is loaded (by the client's first error answer, `describePortalError` of
   * `invoicing-service-sdk/gst`, or the testing kit); `category` and `retryable` it has at once.
   */
  readonly portalMessage: string | undefined;
  /**
   * What kind of rejection this is: `'auth'` (the service's connection to the portal), `'retryable'` (a transient
   * portal failure), `'validation'` (the data), `'state'` (the bill's or document's state), or `'other'`,
   * which is also the category of a code not in the list.
   */
  readonly category: PortalErrorCategory;
  /** Whether trying again later may succeed: true exactly when `category` is `'retryable'`. */
  readonly retryable: boolean;

  constructor(init: ApiErrorInit & { portalCode: number }) {
    const description = portalDescription(init.portalCode);
    super({ ...init, message: messageOf(init, description) });
    this.portalCode = init.portalCode;
    this.portalMessage = description;
    this.category = portalErrorCategory(init.portalCode);
    this.retryable = this.category === 'retryable';
  }
}

/**
 * Whether `error` says the e-way bill already exists: a `PortalError` (of any copy of this SDK) with portal code 604,
 * "E-way bill(s) are already generated for the same document number". After a call that may have succeeded
 * (a timeout, a 5xx), a retry that fails this way means the first attempt did generate the bill.
 * @example
 * try { await client.createEwayBill(id, model) }
 * catch (error) { if (!isAlreadyGenerated(error)) throw error }
 */
export function isAlreadyGenerated(error: unknown): boolean {
  if (error instanceof PortalError) return (error as { portalCode?: unknown }).portalCode === ALREADY_GENERATED;
  return error instanceof ApiError && parsePortalCode(error.errorCode) === ALREADY_GENERATED;
}
