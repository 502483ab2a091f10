import { ValidationError, validationIssue } from '../errors/validation-error.js';
import type { EwayBillModel } from '../model/schemas.js';
import { RULES } from './preflight-rules.js';
import { type LooseModel, type PreflightRule, type Report, RULES_ORDER } from './preflight-types.js';

export { PREFLIGHT_MODES, type PreflightMode } from './preflight-modes.js';

/** What a preflight runs for: the call's `docHashId`, so a batch can tie each finding to its document. */
export interface PreflightContext {
  /** The `doc_hash_id` of the document the e-way bill is for; copied onto every finding. */
  readonly docHashId?: string | undefined;
}

/** One of the portal's well-known rules that a model seems to break. */
export interface PreflightFinding {
  /** The rule's stable id, for example `'pincode-state'`. */
  readonly rule: PreflightRule;
  /** The field's path written with dots, for example `'dispatch_to.pincode'`. */
  readonly field: string;
  /** The field's path as segments, for example `['dispatch_to', 'pincode']`. */
  readonly path: readonly string[];
  /** What is wrong, in words. Quoted values are cut at 80 characters, so a huge field makes a short message. */
  readonly message: string;
  /** The portal's error codes this finding prevents (the service would answer `PORTAL_ERROR_{code}`), e.g. `[436, 710]`. */
  readonly portalCodes: readonly number[];
  /** The document's `docHashId`, when the preflight was given one (the client always gives it). */
  readonly docHashId?: string;
}

// A last bound on a message, whatever a rule quotes: the rules cut values at 80 characters, so this never bites.
const MAX_MESSAGE_LENGTH = 1000;

/**
 * Checks an e-way bill model against rules the portal is known to enforce but the service's spec does not state,
 * so a model the portal would refuse costs no round trip and no rate-limit slot. Each finding names the portal codes
 * it prevents. The rules, by id (see docs/gst-checks.md):
 * - `export-dispatch-to` (373, 374): an `Export` shipped abroad goes to state `'OTHER TERRITORY'` and PIN code
 *   `'999999'`; one shipped to its port of loading in India (`country` `'India'`) is checked as any Indian address;
 * - `others-description` (377): sub supply type `'Others'` needs `sub_supply_type_description`;
 * - `transporter-doc-number` (394, 385, 4042, 823): transport other than `'Road'` needs `transporter_doc_number`,
 *   and by `'Rail'` it is a 9-digit RR or 10-digit PWB number, bare or with its prefix (`P`/`F` and the station
 *   code, `L` for leased wagons);
 * - `indian-pincode` (210, 214): an address in India has a PIN code of 6 digits not starting with 0;
 * - `transporter-id` (222): a `transporter_id`, when given, is a GSTIN (check character included) or a TRANSIN;
 * - `vehicle-number` (225, 355): for `'Road'`, a `vehicle_number` is in a format the portal accepts, written as it
 *   expects (upper case, no spaces or hyphens: the message gives that spelling, e.g. `MH12AB1234`);
 * - `ship-to-gstin` (609): a `ship_to_gstin` other than `'URP'` has a registration's layout, state code and check
 *   character (NIC's sandbox GSTINs are reported as such: the sandbox takes them, production does not);
 * - `ship-to-transaction-type` (616, 864): no `ship_to_gstin` with transaction type `Regular` or
 *   `Bill From - Dispatch From`;
 * - `supply-sub-supply` (202): the sub supply type goes with the supply type (no `Inward` + `Export`, no
 *   `Outward` + `Sales Returns` or `Job Work Returns`);
 * - `pincode-state` (437, 436, 710, 858): an Indian PIN code lies in the address's state (first three digits);
 * - `country-state` (373, 375, 376): an export does not go to India, an import does not come from it, and a foreign
 *   address has state `'OTHER TERRITORY'` (and an Indian one does not);
 * - `odc-road-only` (634): an Over Dimensional Cargo vehicle moves by `'Road'` only;
 * - `road-transporter` (619): `'Road'` needs a `vehicle_number` or a `transporter_id`.
 *
 * Pure and synchronous; it never throws and never sends anything.
 * @param model The model, checked by the schema or not (raw ERP data is fine: missing parts are skipped).
 * @param context The call's `docHashId`, copied onto every finding.
 * @returns The findings, in the order of `PREFLIGHT_RULES`; empty when none of the rules is broken.
 * @example
 * for (const finding of preflightEwayBill(model, { docHashId: 'inv_42' })) {
 *   console.warn(`${finding.docHashId} ${finding.field}: ${finding.message} (${finding.rule}, portal ${finding.portalCodes})`);
 * }
 */
export function preflightEwayBill(model: EwayBillModel, context: PreflightContext = {}): PreflightFinding[] {
  const findings: PreflightFinding[] = [];
  const source = (typeof model === 'object' && model !== null ? model : {}) as LooseModel;
  const docHashId = typeof context?.docHashId === 'string' ? { docHashId: context.docHashId } : {};
  // One report function for every rule (not a closure per rule per call): `rule` is the rule being checked.
  let rule: PreflightRule = RULES_ORDER[0] as PreflightRule;
  const report: Report = (path, text, codes) => {
    const message = text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH)}…` : text;
    const portalCodes = codes ?? RULES[rule].portalCodes;
    findings.push({ rule, field: path.join('.'), path, message, portalCodes, ...docHashId });
  };
  for (rule of RULES_ORDER) RULES[rule].check(source, report);
  return findings;
}

/**
 * The error of strict mode: a `ValidationError` listing every finding with its field, rule and portal codes, or
 * `undefined` when there are none.
 * @example
 * const error = preflightError(preflightEwayBill(model));
 * if (error) throw error;
 */
export function preflightError(findings: readonly PreflightFinding[]): ValidationError | undefined {
  if (findings.length === 0) return undefined;
  const docs = [...new Set(findings.map((finding) => finding.docHashId).filter((id) => id !== undefined))];
  const of = docs.length === 1 ? ` of document '${docs[0]}'` : '';
  return new ValidationError(
    `e-way bill model${of} (it breaks the portal's rules, checked before sending)`,
    findings.map((finding) =>
      validationIssue(
        finding.path,
        `${finding.message} [preflight rule ${finding.rule}; portal ${finding.portalCodes.join('/')}]`,
      ),
    ),
  );
}
