/**
 * GST knowledge without the client: GSTIN, transporter id and vehicle number checks, state codes, the
 * portal's error catalogue, and the preflight of the portal's rules.
 *
 * @module invoicing-service-sdk/gst
 */

// The GST domain knowledge of the SDK: GSTIN and transporter id checks, state codes, the portal's error catalogue,
// and the preflight of the portal's well-known rules.

export { gstinCheckCharacter } from './check-character.js';
export type { GstinCheck, GstinProblem, ParsedGstin } from './gstin.js';
export { checkGstin, isValidGstin, parseGstin, stateFromGstin } from './gstin.js';
export type { PortalErrorCategory, PortalErrorDescription } from './portal-catalogue.js';
export { describePortalError, PORTAL_ERROR_CATEGORIES, PORTAL_ERROR_CATEGORY_MEANINGS } from './portal-catalogue.js';
export type { PreflightContext, PreflightFinding, PreflightMode } from './preflight.js';
export { PREFLIGHT_MODES, preflightError, preflightEwayBill } from './preflight.js';
export type { PreflightRule } from './preflight-rules.js';
export { PREFLIGHT_RULE_PORTAL_CODES, PREFLIGHT_RULES } from './preflight-rules.js';
export type { RegistrationCheck, RegistrationKind } from './registration.js';
export { checkRegistration } from './registration.js';
export { NIC_SANDBOX_GSTINS, UNREGISTERED_PERSON } from './ship-to-gstin.js';
export type { GstStateCode } from './state-codes.js';
export { STATE_CODES, stateCode, stateFromCode } from './state-codes.js';
export type { TransporterIdCheck, TransporterIdKind } from './transporter-id.js';
export { checkTransporterId, isValidTransporterId } from './transporter-id.js';
export { isValidVehicleNumber, normalizeVehicleNumber } from './vehicle-number.js';
