import { checkRegistration } from './registration.js';

/** The value of `ship_to_gstin` for a consignee without GST registration. */
export const UNREGISTERED_PERSON = 'URP';

const SPEC_FORM = /^[0-9A-Z]{15}$/;

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
 * What the spec says is wrong with a `ship_to_gstin`, or `undefined` when it is `'URP'` or a 15-character upper-case
 * alphanumeric identifier (spec: "GSTIN of the consignee, or URP"). Only this is the schema's business: the state
 * code, layout and check character are the portal's rules, checked by preflight (rule `ship-to-gstin`).
 */
export function shipToGstinSpecProblem(value: string): string | undefined {
  if (value === UNREGISTERED_PERSON || SPEC_FORM.test(value)) return undefined;
  const expected = `Expected '${UNREGISTERED_PERSON}' or a GSTIN (15 characters, digits and upper-case letters)`;
  if (value === '') return `${expected}, not an empty string`;
  const trimmed = value.trim();
  if (trimmed.toUpperCase() === UNREGISTERED_PERSON)
    return `${expected}: write '${UNREGISTERED_PERSON}' in upper case, without spaces`;
  if (SPEC_FORM.test(trimmed.toUpperCase())) {
    return `${expected}: write it as '${trimmed.toUpperCase()}' (upper case, no spaces around it)`;
  }
  return `${expected}; this one has ${value.length} character${value.length === 1 ? '' : 's'}${/[^0-9A-Za-z]/.test(value) ? ', some of them neither digits nor letters' : ''}`;
}

/**
 * What the portal would refuse in a `ship_to_gstin` that the spec allows (its layout, state code or check
 * character), or `undefined` when it is `'URP'` or a registration the portal knows (regular, government department,
 * UN body, TDS, TCS, OIDAR, non-resident) with a right check character. Used by preflight, not by the schema.
 */
export function shipToGstinPortalProblem(value: string): string | undefined {
  if (value === UNREGISTERED_PERSON || !SPEC_FORM.test(value)) return undefined;
  const check = checkRegistration(value);
  if (check.valid) return undefined;
  if (NIC_SANDBOX_GSTINS.includes(value)) {
    return `'${value}' is one of NIC's sandbox test GSTINs: the sandbox accepts it, the production portal refuses it (${check.message})`;
  }
  return `The portal refuses this GSTIN: ${check.message}`;
}
