// The model check of every `createEwayBill` (issue 29, item 8: CPU per call). zod's parser of the model made garbage
// for every field of every call (docs/benchmarks.md, "The CPU of a call"); ./fast-parse.ts parses the object schema
// reading each field once. A model it accepts is one zod accepts, with the same output; the cross-field rule is the
// schema's own; anything else goes through `EwayBillModelSchema` itself for its verdict and issues.
import { lazyPart } from '../internal/lazy.js';
import { type EwayBillModel, EwayBillModelObjectSchema, EwayBillModelSchema, shipToGstinMissing } from './schemas.js';

/** What `EwayBillModelSchema.safeParse` returns. */
export type ModelCheck = ReturnType<typeof EwayBillModelSchema.safeParse>;

/** The fast parser, imported on the first check (./fast-parse.ts). */
const fastPart = /* @__PURE__ */ lazyPart(() => import('./fast-parse.js'));
/** The object schema's fast parser; `null` until loaded, `undefined` when the schema holds what it does not unroll. */
let fast: ((model: unknown) => unknown) | null | undefined = null;
let notAccepted: unknown;
/** Whether the fast parser has been asked for, and how many times (tests). */
let asked = false;
let requests = 0;

/**
 * `EwayBillModelSchema.safeParse(model, { reportInput: true })`: the same verdict, output and issues, faster once the
 * fast parser is loaded (it is asked for on the first check; the checks until it is there use the schema alone).
 */
export function checkModel(model: unknown): ModelCheck {
  if (fast) {
    let data: unknown;
    try {
      data = fast(model);
    } catch {
      // A model that cannot be read (a getter or a Proxy that throws) throws from the schema too: the caller makes
      // that a ValidationError, and the fast parser stays. Only when zod reads what the fast parser could not is the
      // parser out of step with zod (its internals changed in a later version): the schema alone from then on.
      const bySchema = EwayBillModelSchema.safeParse(model, { reportInput: true });
      fast = undefined;
      return bySchema;
    }
    // The object schema's output, when the cross-field rule (the schema's refinement) has nothing to say of it.
    if (data !== notAccepted && !shipToGstinMissing(data as EwayBillModel))
      return { success: true, data } as ModelCheck;
  } else if (fast === null && !asked) {
    // Asked once: a burst of calls made before the part is there (10,000 keys at once) must not each add a continuation.
    asked = true;
    requests++;
    fastPart.load().then(
      (part) => {
        notAccepted = part.NOT_ACCEPTED;
        fast = part.modelParser(EwayBillModelObjectSchema);
      },
      () => {
        // A chunk that could not be loaded: the schema goes on alone; the next check asks again.
        asked = false;
      },
    );
  }
  return EwayBillModelSchema.safeParse(model, { reportInput: true });
}

/** Whether the fast parser is in use (tests). */
export function modelCheckFast(): boolean {
  return typeof fast === 'function';
}

/** How many times the fast parser was asked for (tests: once however many checks come before it is there). */
export function modelCheckRequests(): number {
  return requests;
}
