import { describeValue } from '../internal/describe.js';
import type { EwayBillAddress, EwayBillModel } from '../model/schemas.js';

/** The ids of the preflight rules, stable across versions, in the order findings are reported. */
export const PREFLIGHT_RULES = [
  'export-dispatch-to',
  'others-description',
  'transporter-doc-number',
  'indian-pincode',
  'transporter-id',
  'vehicle-number',
  'ship-to-gstin',
  'ship-to-transaction-type',
  'supply-sub-supply',
  'pincode-state',
  'country-state',
  'odc-road-only',
  'road-transporter',
] as const;

/** A value of {@link PREFLIGHT_RULES}. */
export type PreflightRule = (typeof PREFLIGHT_RULES)[number];

/** Records one finding of the rule being run: the field's path, what is wrong, and the portal codes it prevents. */
export type Report = (path: readonly string[], message: string, portalCodes?: readonly number[]) => void;

// The model reaches preflight unchecked when a caller runs it on raw ERP data, so every read tolerates a missing part.
export type LooseModel = Partial<Omit<EwayBillModel, 'dispatch_from' | 'dispatch_to'>> & {
  dispatch_from?: Partial<EwayBillAddress>;
  dispatch_to?: Partial<EwayBillAddress>;
};

/** One rule: the portal codes it prevents (its findings cite them), and its check. */
export interface RuleDefinition {
  readonly portalCodes: readonly number[];
  readonly check: (model: LooseModel, report: Report) => void;
}

/** Some of the rules, keyed by id: the compiler refuses an id that is not in {@link PREFLIGHT_RULES}. */
export type RuleGroup<K extends PreflightRule> = { readonly [P in K]: RuleDefinition };

/** Whether a value is a string with something other than spaces in it. */
export const given = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** The longest quoted value in a message: a 1 MB field must not make a 1 MB warning. */
export const MAX_QUOTED_LENGTH = 80;

/**
 * A value shown in a message by the SDK's one description helper ({@link describeValue}: strings quoted, objects as
 * JSON, never throws), cut at {@link MAX_QUOTED_LENGTH} characters; a cut string also gives its length.
 */
export function quoted(value: unknown): string {
  if (value === undefined) return 'nothing';
  const shown = describeValue(value, MAX_QUOTED_LENGTH);
  // describeValue quotes a string: it is cut when the value and its two quotes are longer than the cap.
  return typeof value === 'string' && value.length + 2 > MAX_QUOTED_LENGTH
    ? `${shown} (${value.length} characters)`
    : shown;
}

/** The spec's state for addresses outside India. */
export const OTHER_TERRITORY = 'OTHER TERRITORY';
/** The PIN code the portal expects for an address outside India. */
export const FOREIGN_PINCODE = '999999';
/** The addresses of a model, with the field names used in paths. */
export const SIDES = ['dispatch_from', 'dispatch_to'] as const;
/** {@link PREFLIGHT_RULES} as a plain readonly array, for iteration. */
export const RULES_ORDER: readonly PreflightRule[] = PREFLIGHT_RULES;
