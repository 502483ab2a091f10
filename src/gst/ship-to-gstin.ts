import { checkGstin } from './gstin.js';

/** The value of `ship_to_gstin` for a consignee without GST registration. */
export const UNREGISTERED_PERSON = 'URP';

/**
 * What is wrong with a `ship_to_gstin`, or `undefined` when it is `'URP'` or a valid GSTIN.
 * Used by the model's schema, so the client's local validation names the field.
 */
export function shipToGstinProblem(value: string): string | undefined {
  if (value === UNREGISTERED_PERSON) return undefined;
  if (value === '') return `Expected '${UNREGISTERED_PERSON}' or a valid GSTIN, not an empty string`;
  if (value.trim().toUpperCase() === UNREGISTERED_PERSON) {
    return `Expected '${UNREGISTERED_PERSON}' (in upper case, without spaces) or a valid GSTIN`;
  }
  const check = checkGstin(value);
  return check.valid ? undefined : `Expected '${UNREGISTERED_PERSON}' or a valid GSTIN. ${check.problem.message}`;
}
