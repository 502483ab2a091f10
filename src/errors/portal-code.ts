import { ApiError } from './api-error.js';

// The portal's code in an error, without the PortalError class: the client's first chunk checks for "already
// generated" (createEwayBillOnce) without bringing PortalError and the portal's descriptions it holds.

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

/**
 * Whether `error` says the e-way bill already exists: a `PortalError` (of any copy of this SDK) with portal code 604,
 * "E-way bill(s) are already generated for the same document number". After a call that may have succeeded
 * (a timeout, a 5xx), a retry that fails this way means the first attempt did generate the bill.
 * @example
 * try { await client.createEwayBill(id, model) }
 * catch (error) { if (!isAlreadyGenerated(error)) throw error }
 */
export function isAlreadyGenerated(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  // A PortalError carries its code; any other ApiError is read from its error_code.
  const { portalCode } = error as { portalCode?: unknown };
  if (portalCode !== undefined) return portalCode === ALREADY_GENERATED;
  return parsePortalCode(error.errorCode) === ALREADY_GENERATED;
}
