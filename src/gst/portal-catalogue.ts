// The portal's error catalogue as part of the GST knowledge. It lives in src/internal/ because src/errors
// (PortalError) reads it too, and src/errors imports nothing from src/gst.
export type { PortalErrorDescription } from '../internal/portal-catalogue.js';
export { describePortalError } from '../internal/portal-catalogue.js';
export type { PortalErrorCategory } from '../internal/portal-error-codes.js';
export { PORTAL_ERROR_CATEGORIES, PORTAL_ERROR_CATEGORY_MEANINGS } from '../internal/portal-error-codes.js';
