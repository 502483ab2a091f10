import type { PortalErrorCodeEntry } from './portal-error-codes.js';

// The portal's descriptions as PortalError reads them when it is made. The list (portal-error-codes.ts, the bulk of the
// error mapping's chunk) is not imported from here: the modules that import it anyway hand it over when they load,
// which are the error mapping (imported by the client when the first error answer arrives, before that answer is
// mapped), `describePortalError` (invoicing-service-sdk/gst) and the testing kit. So a bundle of the client that splits
// code loads the descriptions with the first error, and every error the client throws carries its description. The
// categories are in portal-error-categories.ts, always at hand.

let descriptions: Readonly<Record<number, PortalErrorCodeEntry>> | undefined;

/** Makes the portal's list PortalError's source of descriptions (the first list handed over stays). */
export function usePortalDescriptions(codes: Readonly<Record<number, PortalErrorCodeEntry>>): void {
  descriptions ??= codes;
}

/** The portal's description of a code, once the list is loaded; `undefined` for a code not in the list. */
export function portalDescription(code: number): string | undefined {
  return descriptions !== undefined && Object.hasOwn(descriptions, code) ? descriptions[code]?.description : undefined;
}
