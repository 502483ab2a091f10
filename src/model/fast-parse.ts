// A faster parser of the model's object schema for the model check of every call (./check.ts), imported on a process's
// first check. zod's object parser builds a result object and an issue list for every field of every call; this one
// reads each field once and builds only the output (docs/benchmarks.md, "The CPU of a call"). It decides nothing
// itself: strings, enum members, a string's one refine (its own predicate) and `z.int()` with inclusive bounds are
// tested as zod tests them, every other field is run through zod's own parser of that field, and any input it does
// not accept goes to the schema for its verdict. zod's `compile` would do the same with generated code, but it needs `new Function` and put more of zod
// into the client's first load.
import type { EwayBillModelObjectSchema } from './schemas.js';

/** What the fast parser returns for an input it does not accept: the schema then parses it. */
export const NOT_ACCEPTED: unique symbol = Symbol('not accepted');

type Parser = (value: unknown) => unknown;

/** The part of a zod schema the parser reads: its definition and zod's own parser of it. */
interface SchemaInternals {
  readonly _zod: {
    readonly def: {
      readonly type: string;
      readonly checks?: readonly CheckInternals[];
      readonly coerce?: boolean;
      /** A number's format: `'safeint'` for `z.int()`. */
      readonly format?: string;
      readonly shape?: Readonly<Record<string, SchemaInternals>>;
      readonly catchall?: SchemaInternals;
      readonly innerType?: SchemaInternals;
    };
    readonly values?: ReadonlySet<unknown>;
    run(payload: { value: unknown; issues: unknown[] }, context: object): { value: unknown; issues: unknown[] };
  };
}

/** The part of a zod check the parser reads: its definition. */
interface CheckInternals {
  readonly _zod: {
    readonly def: {
      /** `'custom'` for a `refine`. */
      readonly type?: string;
      /** `'custom'`, `'greater_than'`, `'less_than'`, … */
      readonly check: string;
      /** A refine's predicate. */
      readonly fn?: unknown;
      /** A bound's value, and whether it is allowed. */
      readonly value?: unknown;
      readonly inclusive?: boolean;
      /** When the check runs at all (zod runs it always without one). */
      readonly when?: unknown;
    };
  };
}

const CONTEXT = Object.freeze({ async: false });

/**
 * The predicate of a check that is a plain `refine` (a function of the value alone, run whenever the type matched),
 * or `undefined` for any other check. The value passes only if it returns `true` itself: anything else (falsy, a
 * promise, a truthy non-boolean) is the schema's to judge.
 */
function refineOf(check: CheckInternals): ((value: unknown) => unknown) | undefined {
  const def = check._zod.def;
  if (def.type !== 'custom' || def.check !== 'custom' || def.when !== undefined) return undefined;
  return typeof def.fn === 'function' ? (def.fn as (value: unknown) => unknown) : undefined;
}

/**
 * The parser of `z.int()` with inclusive bounds only (`z.minimum`, `z.maximum`), as zod tests them: a safe integer
 * within every bound. `undefined` for any other number schema (zod's own parser then).
 */
function intParser(def: SchemaInternals['_zod']['def']): Parser | undefined {
  if (def.format !== 'safeint' || def.coerce) return undefined;
  let low = Number.MIN_SAFE_INTEGER;
  let high = Number.MAX_SAFE_INTEGER;
  for (const check of def.checks ?? []) {
    const { check: kind, value, inclusive, when } = check._zod.def;
    if (when !== undefined || inclusive !== true || typeof value !== 'number') return undefined;
    if (kind === 'greater_than') low = Math.max(low, value);
    else if (kind === 'less_than') high = Math.min(high, value);
    else return undefined;
  }
  return (value) =>
    typeof value === 'number' && Number.isSafeInteger(value) && value >= low && value <= high ? value : NOT_ACCEPTED;
}

/** zod's verdict on one field: its output, or NOT_ACCEPTED. */
function byZod(schema: SchemaInternals): Parser {
  return (value) => {
    const result: unknown = schema._zod.run({ value, issues: [] }, CONTEXT);
    // An asynchronous field (none today) is the schema's to refuse, as zod's synchronous parse does.
    if (result instanceof Promise) return NOT_ACCEPTED;
    const { issues, value: output } = result as { value: unknown; issues: unknown[] };
    return issues.length === 0 ? output : NOT_ACCEPTED;
  };
}

/**
 * The parser of a schema, or `undefined` for a schema this module does not unroll: a strict object without checks
 * (unknown keys refused, each field by its own parser, the output's keys in the shape's order, an absent optional
 * field left out, as zod's object parser), an optional field, a string, an enum; any other schema is zod's own.
 */
function parserOf(schema: SchemaInternals): Parser | undefined {
  const { def, values } = schema._zod;
  const plain = (def.checks?.length ?? 0) === 0;
  if (def.type === 'string' && plain && !def.coerce)
    return (value) => (typeof value === 'string' ? value : NOT_ACCEPTED);
  if (def.type === 'string' && !def.coerce && def.checks?.length === 1) {
    // A string with one refine (the service's date): the predicate itself, not zod's run of it.
    const refine = refineOf(def.checks[0] as CheckInternals);
    if (refine) return (value) => (typeof value === 'string' && refine(value) === true ? value : NOT_ACCEPTED);
  }
  if (def.type === 'number') {
    const int = intParser(def);
    if (int) return int;
  }
  if (def.type === 'enum' && plain && values) return (value) => (values.has(value) ? value : NOT_ACCEPTED);
  if (def.type === 'optional') {
    if (!plain || !def.innerType) return undefined;
    const inner = parserOf(def.innerType);
    return inner && ((value) => (value === undefined ? undefined : inner(value)));
  }
  if (def.type === 'object') {
    if (!plain || !def.shape || def.catchall?._zod.def.type !== 'never') return undefined;
    return objectParser(def.shape);
  }
  return byZod(schema);
}

function objectParser(shape: Readonly<Record<string, SchemaInternals>>): Parser | undefined {
  const keys = Object.keys(shape);
  const known = new Set(keys);
  const parsers: Parser[] = [];
  // zod's `optin`: whether the field may be absent (an optional one); an absent required field is refused.
  const optional: boolean[] = [];
  for (const key of keys) {
    const field = shape[key] as SchemaInternals;
    const parser = parserOf(field);
    if (!parser) return undefined;
    parsers.push(parser);
    optional.push(field._zod.def.type === 'optional');
  }
  return (input) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return NOT_ACCEPTED;
    const record = input as Record<string, unknown>;
    // Unknown keys, as zod's strict object looks for them (inherited enumerable ones included).
    for (const key in record) if (!known.has(key)) return NOT_ACCEPTED;
    const output: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const present = key in record;
      if (!present && !optional[i]) return NOT_ACCEPTED;
      const value = (parsers[i] as Parser)(record[key]);
      if (value === NOT_ACCEPTED) return NOT_ACCEPTED;
      // An absent optional field stays absent; a present one is kept, `undefined` included (as zod keeps them).
      if (present) output[key] = value;
    }
    return output;
  };
}

/** The fast parser of the model's object schema, or `undefined` when the schema holds what it does not unroll. */
export function modelParser(schema: typeof EwayBillModelObjectSchema): Parser | undefined {
  return parserOf(schema as unknown as SchemaInternals);
}
