import { ValidationError } from '../errors/index.js';
import { NIC_SANDBOX_GSTINS, type PreflightFinding, preflightEwayBill } from '../gst/index.js';
import { type EwayBillModel, EwayBillModelSchema } from '../model/index.js';

/** The result of checking a create-e-way-bill request's body: the model, or field-level errors. */
export type BodyCheck =
  | { readonly ok: true; readonly model: EwayBillModel }
  | { readonly ok: false; readonly message: string; readonly errors: Record<string, string[]> };

function fail(field: string, message: string, summary: string): BodyCheck {
  return { ok: false, message: summary, errors: { [field]: [message] } };
}

/** Whether a Content-Type names JSON (`application/json`, with or without parameters such as charset). */
export function isJsonContentType(value: string | null): boolean {
  return value !== null && /^application\/json\s*(;|$)/i.test(value.trim());
}

/** A portal rule the body breaks: the portal code the service would relay, and the finding behind it. */
export interface PortalRefusal {
  readonly portalCode: number;
  readonly finding: PreflightFinding;
}

/**
 * The portal's rules, as production applies them after the service's own validation: the first preflight finding
 * (the SDK's own rules, so the emulator and the client agree), or `undefined`. The service targets NIC's sandbox by
 * default (spec, Create e-way bill, rule 3), and the sandbox accepts its own test GSTINs, so those pass here too.
 */
export function checkPortalRules(model: EwayBillModel, docHashId: string): PortalRefusal | undefined {
  const finding = preflightEwayBill(model, { docHashId }).find(
    (found) => !(found.rule === 'ship-to-gstin' && NIC_SANDBOX_GSTINS.includes(String(model.ship_to_gstin))),
  );
  const portalCode = finding?.portalCodes[0];
  return finding === undefined || portalCode === undefined ? undefined : { portalCode, finding };
}

/**
 * Checks the body against every rule of the spec (and nothing more: the portal's rules are {@link checkPortalRules}) with the SDK's own {@link EwayBillModelSchema} (so the lists and
 * rules exist once). Errors are keyed by dotted field path (`'dispatch_from.addr_id'`), `'(root)'` for the
 * whole body, and `'Content-Type'` for the header.
 */
export function checkEwayBillBody(contentType: string | null, text: string): BodyCheck {
  if (!isJsonContentType(contentType)) {
    return fail(
      'Content-Type',
      `Expected application/json; got ${contentType === null ? 'no Content-Type' : `'${contentType}'`}`,
      'The request body must be JSON sent with Content-Type: application/json',
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return fail('(root)', `Malformed JSON: ${detail}`, 'The request body is not valid JSON');
  }
  const parsed = EwayBillModelSchema.safeParse(json, { reportInput: true });
  if (parsed.success) return { ok: true, model: parsed.data };
  const errors: Record<string, string[]> = {};
  for (const issue of ValidationError.fromZodError(parsed.error, 'e-way bill model').issues) {
    errors[issue.field] ??= [];
    errors[issue.field]?.push(issue.message);
  }
  const count = Object.keys(errors).length;
  return {
    ok: false,
    message: `The e-way bill model is invalid: ${count === 1 ? '1 field has' : `${count} fields have`} errors`,
    errors,
  };
}
