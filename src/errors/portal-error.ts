import { ApiError, type ApiErrorInit } from './api-error.js';

const PORTAL_ERROR_PATTERN = /^PORTAL_ERROR_(\d+)$/;

/** The portal's numeric code in an `error_code` of the form `PORTAL_ERROR_{n}`, or `undefined`. */
export function parsePortalCode(errorCode: string | undefined): number | undefined {
  const match = errorCode === undefined ? null : PORTAL_ERROR_PATTERN.exec(errorCode);
  return match ? Number(match[1]) : undefined;
}

/**
 * The government e-way bill portal rejected the request: `error_code` `PORTAL_ERROR_{n}`.
 * `portalCode` is the portal's own numeric code (for example 604, "already generated").
 */
export class PortalError extends ApiError {
  static override readonly code: string = 'PORTAL_ERROR';
  override name = 'PortalError';
  /** The portal's numeric error code, parsed from `PORTAL_ERROR_{n}`. */
  readonly portalCode: number;

  constructor(init: ApiErrorInit & { portalCode: number }) {
    super(init);
    this.portalCode = init.portalCode;
  }
}
