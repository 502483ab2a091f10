// What `client.request` accepts: a path that cannot leave the base URL, a query, a JSON body, headers the SDK does not
// own, and a Standard Schema for the answer. Everything here runs before anything is sent.
import { ValidationError, validationIssue } from '../errors/validation-error.js';
import { describeType, describeValue } from '../internal/describe.js';
import type { HttpMethod } from './call.js';

/** The methods `request` sends. */
export const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** A query parameter's value; `undefined` leaves the parameter out, an array repeats it. */
export type QueryValue = string | number | boolean | undefined | readonly (string | number | boolean)[];

const MAX_BODY_DEPTH = 256;

/** A thrown value as a short text for an issue. */
const reason = (error: unknown): string => (error instanceof Error ? error.message : describeValue(error));

/**
 * What `JSON.stringify` writes as `{}` (or as index keys), losing what the object holds, with how to send it instead.
 * `undefined` for any other object.
 */
function lossyObject(value: object): string | undefined {
  if (value instanceof Map) return 'a Map would be written as {}; send Object.fromEntries(map)';
  if (value instanceof Set) return 'a Set would be written as {}; send [...set]';
  if (value instanceof WeakMap || value instanceof WeakSet) return 'a WeakMap or WeakSet cannot be sent as JSON';
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    return 'binary data (a typed array, DataView or ArrayBuffer) would be written as {} or index keys; send Array.from(it) or base64 text';
  }
  if (value instanceof Promise) return 'a Promise would be written as {}; await it first';
  return undefined;
}

/**
 * The body as JSON text. A value JSON cannot hold as given (a BigInt, a function, a symbol, `NaN` or `Infinity`, a
 * cycle, `undefined` in an array, a Map, a Set, binary data, an invalid Date) is a `ValidationError` naming where,
 * instead of being dropped or turned into `null` or `{}` by `JSON.stringify`. `undefined` object fields are left out,
 * as JSON does. A `toJSON` method is called once, as `JSON.stringify` calls it, and what it returns is checked the same
 * way; the JSON is written from the values read here, so a getter is read once.
 */
export function jsonBody(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  const issues: ReturnType<typeof validationIssue>[] = [];
  const seen = new Set<object>();
  const SKIP = Symbol('skip');
  const walk = (given: unknown, key: string, path: (string | number)[], inArray: boolean): unknown => {
    if (issues.length >= 20) return SKIP;
    let value = given;
    const toJSON = (value as { toJSON?: unknown } | null | undefined)?.toJSON;
    if (typeof value === 'object' && value !== null && typeof toJSON === 'function') {
      const invalidDate = value instanceof Date && Number.isNaN(value.getTime());
      if (invalidDate) {
        issues.push(validationIssue(path, 'is an invalid Date, which JSON writes as null'));
        return SKIP;
      }
      try {
        value = toJSON.call(value, key);
      } catch (error) {
        issues.push(validationIssue(path, `its toJSON() threw: ${reason(error)}`));
        return SKIP;
      }
    }
    // Number, String and Boolean objects are written as their primitive, as JSON.stringify does.
    if (value instanceof Number || value instanceof String || value instanceof Boolean) value = value.valueOf();
    const type = typeof value;
    if (value === null || type === 'string' || type === 'boolean') return value;
    if (type === 'number') {
      if (!Number.isFinite(value)) issues.push(validationIssue(path, `${String(value)} is not a JSON number`));
      return value;
    }
    if (type === 'undefined') {
      if (inArray || path.length === 0) issues.push(validationIssue(path, 'undefined cannot be sent as JSON'));
      return SKIP;
    }
    if (type !== 'object') {
      issues.push(validationIssue(path, `a ${type} cannot be sent as JSON`));
      return SKIP;
    }
    const object = value as object;
    const lossy = lossyObject(object);
    if (lossy) {
      issues.push(validationIssue(path, lossy));
      return SKIP;
    }
    if (seen.has(object)) {
      issues.push(validationIssue(path, 'refers to itself (a cycle); JSON cannot hold it'));
      return SKIP;
    }
    if (path.length >= MAX_BODY_DEPTH) {
      issues.push(validationIssue(path, `is nested deeper than ${MAX_BODY_DEPTH} levels`));
      return SKIP;
    }
    seen.add(object);
    let copy: unknown;
    if (Array.isArray(object)) {
      const items: unknown[] = [];
      for (let index = 0; index < object.length; index++) {
        items.push(walk(object[index], String(index), [...path, index], true));
      }
      copy = items;
    } else {
      // No prototype: a `__proto__` field is a field like any other, as in the object given.
      const fields: Record<string, unknown> = Object.create(null);
      for (const name of Object.keys(object)) {
        let item: unknown;
        try {
          item = (object as Record<string, unknown>)[name];
        } catch (error) {
          issues.push(validationIssue([...path, name], `could not be read: ${reason(error)}`));
          continue;
        }
        const written = walk(item, name, [...path, name], false);
        if (written !== SKIP) fields[name] = written;
      }
      copy = fields;
    }
    seen.delete(object);
    return copy;
  };
  let prepared: unknown;
  try {
    prepared = walk(body, '', [], false);
  } catch (error) {
    issues.push(validationIssue([], `could not be read: ${reason(error)}`));
  }
  if (issues.length > 0) throw new ValidationError('request body', issues);
  return JSON.stringify(prepared);
}

/** A Standard Schema (zod, valibot, arktype, ...): what `options.schema` accepts. */
export interface StandardSchemaV1<Output = unknown> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (
      value: unknown,
    ) =>
      | { readonly value: Output; readonly issues?: undefined }
      | { readonly issues: readonly StandardSchemaV1.Issue[] }
      | Promise<
          | { readonly value: Output; readonly issues?: undefined }
          | { readonly issues: readonly StandardSchemaV1.Issue[] }
        >;
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
  };
}

export declare namespace StandardSchemaV1 {
  /** One issue a Standard Schema reports. */
  interface Issue {
    readonly message: string;
    readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
  }
}

/** What a Standard Schema's `validate` resolves to. */
export type StandardResult<Output> = Awaited<ReturnType<StandardSchemaV1<Output>['~standard']['validate']>>;

/** Checks `schema` is a Standard Schema. */
export function checkSchema(schema: unknown): StandardSchemaV1 | undefined {
  if (schema === undefined) return undefined;
  const standard = (schema as { '~standard'?: { validate?: unknown } } | null)?.['~standard'];
  if (typeof standard?.validate !== 'function') {
    throw new TypeError(
      `request: options.schema must be a Standard Schema (a zod, valibot or arktype schema); got ${describeType(schema)}`,
    );
  }
  return schema as StandardSchemaV1;
}
