// The `invoicing-service-sdk/gst` entry, and that the root no longer re-exports its names (since 0.2.0).
import * as root from 'invoicing-service-sdk';
import * as gst from 'invoicing-service-sdk/gst';
import { describe, expect, it } from 'vitest';

describe('invoicing-service-sdk/gst', () => {
  it('exports the GST checks', () => {
    expect(Object.keys(gst).sort()).toEqual([
      'NIC_SANDBOX_GSTINS',
      'PORTAL_ERROR_CATEGORIES',
      'PORTAL_ERROR_CATEGORY_MEANINGS',
      'PREFLIGHT_MODES',
      'PREFLIGHT_RULES',
      'PREFLIGHT_RULE_PORTAL_CODES',
      'STATE_CODES',
      'UNREGISTERED_PERSON',
      'checkGstin',
      'checkRegistration',
      'checkTransporterId',
      'describePortalError',
      'gstinCheckCharacter',
      'isValidGstin',
      'isValidTransporterId',
      'isValidVehicleNumber',
      'normalizeVehicleNumber',
      'parseGstin',
      'preflightError',
      'preflightEwayBill',
      'stateCode',
      'stateFromCode',
      'stateFromGstin',
    ]);
  });

  it('is not re-exported by the root since 0.2.0 (issue 18: a root a reader can hold)', () => {
    const rootNames = root as Record<string, unknown>;
    const shared = Object.keys(gst).filter((name) => name in rootNames);
    // The errors are the root's own classes, which the gst subpath uses too; no GST function is in the root.
    expect(shared.filter((name) => typeof rootNames[name] === 'function' && !/Error$/.test(name))).toEqual([]);
  });
});
