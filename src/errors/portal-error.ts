import { portalErrorCategory } from '../internal/portal-error-categories.js';
import type { PortalErrorCategory } from '../internal/portal-error-codes.js';
import { ApiError, type ApiErrorInit } from './api-error.js';

export { isAlreadyGenerated, parsePortalCode } from './portal-code.js';

/** What a {@link PortalError} is made of: an {@link ApiErrorInit}, the portal's code, and its description if known. */
export interface PortalErrorInit extends ApiErrorInit {
  /** The portal's numeric code, parsed from `PORTAL_ERROR_{n}`. */
  portalCode: number;
  /**
   * The portal's description of the code. The client's error mapping looks it up in the portal's list; a PortalError
   * made by hand has the one it is given (`describePortalError(code).description` of `invoicing-service-sdk/gst`).
   * @default undefined
   */
  portalMessage?: string | undefined;
}

const flat = (text: string): string => text.replace(/[\s_]+/g, '').toLowerCase();

/** Whether the body carried a message of the service that says more than the code itself. */
function serviceExplained(body: unknown, portalCode: number): boolean {
  const said = (body as { message?: unknown } | null | undefined)?.message;
  if (typeof said !== 'string') return false;
  return !['', String(portalCode), `portalerror${portalCode}`].includes(flat(said));
}

// A bare "PORTAL_ERROR_238" in a log is what partners cannot act on; a message of the service is kept as it is.
function messageOf(init: PortalErrorInit, description: string | undefined): string {
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
   * The portal's own description of the code, worded as published; `undefined` for a code not in the list. Every
   * PortalError the client throws has it (its error mapping looks the code up); one made by hand has the
   * `portalMessage` it was given, whatever was imported before.
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

  constructor(init: PortalErrorInit) {
    const description = init.portalMessage;
    super({ ...init, message: messageOf(init, description) });
    this.portalCode = init.portalCode;
    this.portalMessage = description;
    this.category = portalErrorCategory(init.portalCode);
    this.retryable = this.category === 'retryable';
  }
}
