import { ValidationError, validationIssue } from '../errors/validation-error.js';
import type { EwayBillModel } from '../model/schemas.js';
import { type LooseModel, type PreflightRule, RULES } from './preflight-rules.js';

/** How the client treats preflight findings; `'warn'` is the default. */
export const PREFLIGHT_MODES = ['off', 'warn', 'strict'] as const;

/**
 * A value of {@link PREFLIGHT_MODES}:
 * - `'off'`: no preflight;
 * - `'warn'`: findings go to `onWarning` (or the logger) and the request is still sent;
 * - `'strict'`: findings are a `ValidationError` and nothing is sent.
 */
export type PreflightMode = (typeof PREFLIGHT_MODES)[number];

/** One of the portal's well-known rules that a model seems to break. */
export interface PreflightFinding {
  /** The rule's stable id, for example `'export-dispatch-to'`. */
  readonly rule: PreflightRule;
  /** The field's path written with dots, for example `'dispatch_to.pincode'`. */
  readonly field: string;
  /** The field's path as segments, for example `['dispatch_to', 'pincode']`. */
  readonly path: readonly string[];
  /** What is wrong, in words. */
  readonly message: string;
}

/**
 * Checks an e-way bill model against rules the portal is known to enforce but the service's spec does not state,
 * so a model the portal would refuse costs no round trip and no rate-limit slot:
 * - `export-dispatch-to`: an `Export` goes to state `'OTHER TERRITORY'` and PIN code `'999999'`;
 * - `others-description`: sub supply type `'Others'` needs `sub_supply_type_description`;
 * - `transporter-doc-number`: transport other than `'Road'` needs `transporter_doc_number`;
 * - `indian-pincode`: an address in India has a PIN code of 6 digits not starting with 0;
 * - `transporter-id`: a `transporter_id`, when given, is a GSTIN or a TRANSIN;
 * - `vehicle-number`: for `'Road'`, a `vehicle_number`, when given, is in a format the portal accepts and written as
 *   the portal expects it (upper case, no spaces or hyphens: the message gives that spelling, e.g. `MH12AB1234`).
 *
 * Pure and synchronous; it never throws and never sends anything.
 * @returns The findings, in the order above; empty when none of the rules is broken.
 * @example
 * const findings = preflightEwayBill(model);
 * for (const finding of findings) console.warn(`${finding.field}: ${finding.message} (${finding.rule})`);
 */
export function preflightEwayBill(model: EwayBillModel): PreflightFinding[] {
  const findings: PreflightFinding[] = [];
  const source = (typeof model === 'object' && model !== null ? model : {}) as LooseModel;
  for (const rule of RULES) {
    rule(source, (id, path, message) => findings.push({ rule: id, field: path.join('.'), path, message }));
  }
  return findings;
}

/**
 * The error of strict mode: a `ValidationError` listing every finding with its field, or `undefined` when there
 * are none.
 * @example
 * const error = preflightError(preflightEwayBill(model));
 * if (error) throw error;
 */
export function preflightError(findings: readonly PreflightFinding[]): ValidationError | undefined {
  if (findings.length === 0) return undefined;
  return new ValidationError(
    "e-way bill model (it breaks the portal's rules, checked before sending)",
    findings.map((finding) => validationIssue(finding.path, `${finding.message} [preflight rule ${finding.rule}]`)),
  );
}
