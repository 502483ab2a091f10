// What the spec says a `ship_to_gstin` looks like: the schema's business (src/model), read by src/gst's preflight.
// The portal's rules (state code, layout, check character) are in src/gst/ship-to-gstin.ts.

/** The value of `ship_to_gstin` for a consignee without GST registration. */
export const UNREGISTERED_PERSON = 'URP';

/** The spec's form of a GSTIN: 15 upper-case letters and digits. */
export const GSTIN_SPEC_FORM = /^[0-9A-Z]{15}$/;

/**
 * What the spec says is wrong with a `ship_to_gstin`, or `undefined` when it is `'URP'` or a 15-character upper-case
 * alphanumeric identifier (spec: "GSTIN of the consignee, or URP"). Only this is the schema's business: the state
 * code, layout and check character are the portal's rules, checked by preflight (rule `ship-to-gstin`).
 */
export function shipToGstinSpecProblem(value: string): string | undefined {
  if (value === UNREGISTERED_PERSON || GSTIN_SPEC_FORM.test(value)) return undefined;
  const expected = `Expected '${UNREGISTERED_PERSON}' or a GSTIN (15 characters, digits and upper-case letters)`;
  if (value === '') return `${expected}, not an empty string`;
  const trimmed = value.trim();
  if (trimmed.toUpperCase() === UNREGISTERED_PERSON)
    return `${expected}: write '${UNREGISTERED_PERSON}' in upper case, without spaces`;
  if (GSTIN_SPEC_FORM.test(trimmed.toUpperCase())) {
    return `${expected}: write it as '${trimmed.toUpperCase()}' (upper case, no spaces around it)`;
  }
  return `${expected}; this one has ${value.length} character${value.length === 1 ? '' : 's'}${/[^0-9A-Za-z]/.test(value) ? ', some of them neither digits nor letters' : ''}`;
}
