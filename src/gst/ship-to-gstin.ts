import { GSTIN_SPEC_FORM, UNREGISTERED_PERSON } from '../model/ship-to-gstin.js';
import { checkRegistration } from './registration.js';

// The spec's part (the schema's check) lives in src/model; the GST entry re-exports its value for `'URP'`.
export { UNREGISTERED_PERSON };

/**
 * The GSTINs that NIC's sandbox documentation and sample payloads give partners to test with. Their check characters
 * are wrong (so the production portal refuses them), yet the sandbox accepts them.
 * Sources: NIC e-invoice sandbox sample payloads (BuyerDtls / SellerDtls), as copied into public integrations.
 */
export const NIC_SANDBOX_GSTINS: readonly string[] = Object.freeze([
  '29AABCT1332L000',
  '36AABCT1332L011',
  '36AMBPG7773M002',
  '01AMBPG7773M002',
  '34AACCC1596Q002',
  '29AWGPV7107B1Z1',
]);

/**
 * What the portal would refuse in a `ship_to_gstin` that the spec allows (its layout, state code or check
 * character), or `undefined` when it is `'URP'` or a registration the portal knows (regular, government department,
 * UN body, TDS, TCS, OIDAR, non-resident) with a right check character. Used by preflight, not by the schema.
 */
export function shipToGstinPortalProblem(value: string): string | undefined {
  if (value === UNREGISTERED_PERSON || !GSTIN_SPEC_FORM.test(value)) return undefined;
  const check = checkRegistration(value);
  if (check.valid) return undefined;
  if (NIC_SANDBOX_GSTINS.includes(value)) {
    return `'${value}' is one of NIC's sandbox test GSTINs: the sandbox accepts it, the production portal refuses it (${check.message})`;
  }
  return `The portal refuses this GSTIN: ${check.message}`;
}
