import type * as z from 'zod';
import { ValidationError, validationIssue } from '../errors/validation-error.js';
import { describeValue } from '../internal/describe.js';

const MAX_LISTED_VALUES = 8;

const describe = (value: unknown): string => describeValue(value);

function messageOf(issue: z.core.$ZodIssue): string {
  // The input of an object-level rule is the whole object: not worth repeating in the message.
  const input = 'input' in issue ? issue.input : undefined;
  const received =
    input !== undefined && (typeof input !== 'object' || input === null) ? `; got ${describe(input)}` : '';
  if (issue.code === 'invalid_value' && issue.values.length > MAX_LISTED_VALUES) {
    const examples = issue.values.slice(0, 3).map(describe).join(', ');
    return `Expected one of ${issue.values.length} allowed values, spelled exactly (for example ${examples})${received}`;
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) return `Required (${issue.expected})`;
  if (issue.code === 'unrecognized_keys') return issue.message;
  return `${issue.message}${issue.code === 'invalid_value' || issue.code === 'custom' ? received : ''}`;
}

/** Turns a zod error into a {@link ValidationError} that lists every issue with its field path. */
export function toValidationError(subject: string, error: z.ZodError): ValidationError {
  return new ValidationError(
    subject,
    error.issues.map((issue) =>
      validationIssue(
        issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment)),
        messageOf(issue),
      ),
    ),
  );
}
