import { type ValidationIssue, validationIssue } from '../errors/validation-error.js';

// The spec's event shapes written once, as tables, with a small checker that needs no schema library: the webhook
// entry stays small enough for edge bundles and fast enough to add little to an HMAC (issue 13). The exported zod
// schemas (event-schemas.ts) are built from the same tables.

/** The directions of an inventory change. */
export const INVENTORY_MOVEMENTS = ['in', 'out'] as const;

/** What one field of an event's `data` must be. `'int'` is a safe integer; a list is the allowed strings. */
export type FieldKind = 'string' | 'int' | 'number' | 'int_or_string' | readonly string[];

/** The fields of a `document` event's `data` (spec, Event type `document`). */
export const DOCUMENT_EVENT_FIELDS = {
  document_type: 'string',
  serial_number: 'string',
  hash_id: 'string',
  message: 'string',
  timestamp: 'string',
} as const satisfies Record<string, FieldKind>;

/** The fields of an `inventory` event's `data` (spec, Event type `inventory`). */
export const INVENTORY_EVENT_FIELDS = {
  service_product_id: 'int',
  partner_product_id: 'int_or_string',
  product_name: 'string',
  qty: 'number',
  movement: INVENTORY_MOVEMENTS,
  timestamp: 'string',
} as const satisfies Record<string, FieldKind>;

/** The TypeScript type of a field of kind `K`. */
export type FieldType<K extends FieldKind> = K extends 'string'
  ? string
  : K extends 'int' | 'number'
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
function mismatch(kind: FieldKind, value: unknown): string | undefined {
  if (value === undefined) return 'is missing';
  switch (kind) {
    case 'string':
      return typeof value === 'string' ? undefined : `expected a string, got ${describeType(value)}`;
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

const entries = new WeakMap<object, readonly (readonly [string, FieldKind])[]>();

/** The table's entries, listed once per table (the check runs on every event). */
function entriesOf(fields: Readonly<Record<string, FieldKind>>): readonly (readonly [string, FieldKind])[] {
  let list = entries.get(fields);
  if (list === undefined) {
    list = Object.entries(fields);
    entries.set(fields, list);
  }
  return list;
}

/**
 * Every way `data` differs from the table `fields`, each with its path under `data`. Extra fields are not issues:
 * the service may add fields, and receivers keep them.
 */
export function checkFields(fields: Readonly<Record<string, FieldKind>>, data: unknown): ValidationIssue[] {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return [validationIssue(['data'], `expected an object, got ${describeType(data)}`)];
  }
  const issues: ValidationIssue[] = [];
  const record = data as Record<string, unknown>;
  for (const [name, kind] of entriesOf(fields)) {
    const problem = mismatch(kind, Object.hasOwn(record, name) ? record[name] : undefined);
    if (problem !== undefined) issues.push(validationIssue(['data', name], problem));
  }
  return issues;
}
