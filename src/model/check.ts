// The model check of every `createEwayBill` (issue 29, item 8: CPU per call). zod's parser of the model made garbage
// for every field of every call (docs/benchmarks.md, "The CPU of a call"); ./fast-parse.ts parses the object schema
// reading each field once. A model it accepts is one zod accepts, with the same output; the cross-field rule is the
// schema's own; anything else goes through `EwayBillModelSchema` itself for its verdict and issues.
import { modelParser, NOT_ACCEPTED } from './fast-parse.js';
import { type EwayBillModel, EwayBillModelObjectSchema, EwayBillModelSchema, shipToGstinMissing } from './schemas.js';

/** What `EwayBillModelSchema.safeParse` returns. */
export type ModelCheck = ReturnType<typeof EwayBillModelSchema.safeParse>;

/**
 * The object schema's fast parser: `null` until the first check builds it (in that check's turn, so a burst of calls
 * made at once is checked by it too), `undefined` when the schema holds what it does not unroll, or the parser failed.
 */
let fast: ((model: unknown) => unknown) | null | undefined = null;

/**
 * `EwayBillModelSchema.safeParse(model, { reportInput: true })`: the same verdict, output and issues, faster where the
 * fast parser accepts the model.
 */
export function checkModel(model: unknown): ModelCheck {
  if (fast === null) fast = modelParser(EwayBillModelObjectSchema);
  if (fast) {
    let data: unknown;
    try {
      data = fast(model);
    } catch {
      // zod's internals read by the fast parser changed under a newer zod: the schema alone from now on.
      fast = undefined;
      return EwayBillModelSchema.safeParse(model, { reportInput: true });
    }
    // The object schema's output, when the cross-field rule (the schema's refinement) has nothing to say of it.
    if (data !== NOT_ACCEPTED && !shipToGstinMissing(data as EwayBillModel))
      return { success: true, data } as ModelCheck;
  }
  return EwayBillModelSchema.safeParse(model, { reportInput: true });
}

/** Whether the fast parser is in use (tests). */
export function modelCheckFast(): boolean {
  return typeof fast === 'function';
}
