import { type ValidationIssue, validationIssue } from '../errors/validation-error.js';
import { isSpecTimestamp } from './timestamp.js';

// The spec's event shapes written once, as tables, with a small checker that needs no schema library: the webhook
// entry stays small enough for edge bundles and fast enough to add little to an HMAC (issue 13). The exported zod
// schemas (event-schemas.ts) are built from the same tables.

/** The directions of an inventory change. */
export const INVENTORY_MOVEMENTS = ['in', 'out'] as const;

/**
 * What one field of an event's `data` must be. `'int'` is a safe integer; `'id'` a non-empty string; `'quantity'` a
 * number above 0 and at most 2^53 − 1 (the direction is `movement`'s); `'timestamp'` the spec's
 * `YYYY-MM-DD HH:MM:SS.ffffff`, a real date and time; a list is the allowed strings.
 */
export type FieldKind =
  | 'string'
  | 'id'
  | 'int'
  | 'number'
  | 'quantity'
  | 'timestamp'
  | 'int_or_string'
  | readonly string[];

/** The fields of a `document` event's `data` (spec, Event type `document`). */
export const DOCUMENT_EVENT_FIELDS = {
  document_type: 'string',
  serial_number: 'string',
  hash_id: 'id',
  message: 'string',
  timestamp: 'timestamp',
} as const satisfies Record<string, FieldKind>;

/** The fields of an `inventory` event's `data` (spec, Event type `inventory`). */
export const INVENTORY_EVENT_FIELDS = {
  service_product_id: 'int',
  partner_product_id: 'int_or_string',
  product_name: 'string',
  qty: 'quantity',
  movement: INVENTORY_MOVEMENTS,
  timestamp: 'timestamp',
} as const satisfies Record<string, FieldKind>;

/** The TypeScript type of a field of kind `K`. */
export type FieldType<K extends FieldKind> = K extends 'string' | 'id' | 'timestamp'
  ? string
  : K extends 'int' | 'number' | 'quantity'
    ? number
    : K extends 'int_or_string'
      ? number | string
      : K extends readonly (infer E)[]
        ? E
        : never;

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Why `value` is not of kind `kind`, or `undefined` when it is. */
export function kindProblem(kind: FieldKind, value: unknown): string | undefined {
  if (value === undefined) return 'is missing';
  switch (kind) {
    case 'string':
      return typeof value === 'string' ? undefined : `expected a string, got ${describeType(value)}`;
    case 'id':
      if (typeof value !== 'string') return `expected a string, got ${describeType(value)}`;
      return value.trim() === '' ? 'expected a non-empty identifier' : undefined;
    case 'quantity':
      if (typeof value !== 'number' || !Number.isFinite(value))
        return `expected a finite number, got ${describeType(value)}`;
      return value > 0 && value <= Number.MAX_SAFE_INTEGER
        ? undefined
        : `expected a quantity above 0 and at most 2^53 - 1 (the direction is movement's), got ${value}`;
    case 'timestamp':
      if (typeof value !== 'string') return `expected a string, got ${describeType(value)}`;
      return !isSpecTimestamp(value)
        ? `expected a real date and time written YYYY-MM-DD HH:MM:SS.ffffff, got '${value.slice(0, 40)}'`
        : undefined;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
        ? undefined
        : `expected a finite number, got ${describeType(value)}`;
    case 'int':
      return Number.isSafeInteger(value) ? undefined : `expected an integer, got ${describeType(value)}`;
    case 'int_or_string':
      return typeof value === 'string' || Number.isSafeInteger(value)
        ? undefined
        : `expected an integer or a string, got ${describeType(value)}`;
    default:
      return typeof value === 'string' && kind.includes(value)
        ? undefined
        : `expected one of ${kind.map((v) => `'${v}'`).join(', ')}`;
  }
}

/** A table split into parallel lists of names and kinds, made once per table (the check runs on every event). */
interface CompiledFields {
  readonly names: readonly string[];
  readonly kinds: readonly FieldKind[];
}

const compiled = new WeakMap<object, CompiledFields>();

function compile(fields: Readonly<Record<string, FieldKind>>): CompiledFields {
  let table = compiled.get(fields);
  if (table === undefined) {
    table = { names: Object.keys(fields), kinds: Object.values(fields) };
    compiled.set(fields, table);
  }
  return table;
}

/** A shared, frozen "no issues" answer, so a matching event costs no allocation. */
const NO_ISSUES: readonly ValidationIssue[] = Object.freeze([]);

/**
 * Every way `data` differs from the table `fields`, each with its path under `data`. Extra fields are not issues:
 * the service may add fields, and receivers keep them. A matching `data` gets a shared frozen empty list; copy it
 * before adding to it.
 */
export function checkFields(fields: Readonly<Record<string, FieldKind>>, data: unknown): readonly ValidationIssue[] {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return [validationIssue(['data'], `expected an object, got ${describeType(data)}`)];
  }
  const { names, kinds } = compile(fields);
  const record = data as Record<string, unknown>;
  let issues: ValidationIssue[] | undefined;
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const problem = kindProblem(kinds[i] as FieldKind, Object.hasOwn(record, name) ? record[name] : undefined);
    if (problem === undefined) continue;
    issues ??= [];
    issues.push(validationIssue(['data', name], problem));
  }
  return issues ?? NO_ISSUES;
}
