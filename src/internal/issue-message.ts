import type { core } from 'zod/mini';
import { describeValue } from './describe.js';

// The SDK writes the message of every zod issue itself. `zod/mini` loads no locale, so without this a message would
// be zod's bare "Invalid input"; loading `z.locales.en()` would put every English message of zod in the bundle, and
// would configure the locale of the user's own zod (a side effect of an import). Each message says what was expected
// and what was got. It never repeats the field's path: ValidationError puts the path in front.

const MAX_LISTED_VALUES = 8;

const describe = (value: unknown): string => describeValue(value);

/** What an `invalid_type` issue's `expected` means, where zod's word is not plain English; others are kept. */
const TYPE_NAMES: Readonly<Record<string, string>> = { int: 'integer', nonoptional: 'a value' };

const typeName = (expected: string): string => TYPE_NAMES[expected] ?? expected;

/** The allowed values: all of them when the list is short, else how many and the first three. */
function allowedValues(values: readonly unknown[]): string {
  if (values.length > MAX_LISTED_VALUES) {
    const examples = values.slice(0, 3).map(describe).join(', ');
    return `one of ${values.length} allowed values, spelled exactly (for example ${examples})`;
  }
  return values.length === 1 ? describe(values[0]) : `one of ${values.map(describe).join(', ')}`;
}

/** `1 character`, `2 items`. */
const count = (n: number, unit: string): string => `${n} ${unit}${n === 1 ? '' : 's'}`;

const LIMIT_WORDS: Readonly<Record<string, string>> = {
  'too_small/true': 'at least',
  'too_small/false': 'more than',
  'too_big/true': 'at most',
  'too_big/false': 'less than',
};

/** A limit in words: "at least 1 character", "at most 999999", "exactly 15 characters". */
function limit(issue: core.$ZodIssueTooSmall | core.$ZodIssueTooBig): string {
  const value = issue.code === 'too_small' ? issue.minimum : issue.maximum;
  const words = issue.exact ? 'exactly' : LIMIT_WORDS[`${issue.code}/${issue.inclusive === true}`];
  const unit =
    issue.origin === 'string' ? 'character' : issue.origin === 'array' || issue.origin === 'set' ? 'item' : '';
  return unit === '' ? `${words} ${value}` : `${words} ${count(Number(value), unit)}`;
}

/** What was expected, in words ("string", "one of 'Road', 'Rail'"), or `undefined` for a rule's own message. */
function expectedOf(issue: core.$ZodIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return typeName(issue.expected);
    case 'invalid_value':
      return allowedValues(issue.values);
    case 'too_small':
    case 'too_big':
      return limit(issue);
    case 'not_multiple_of':
      return `a multiple of ${issue.divisor}`;
    case 'invalid_format':
      return `text in the ${issue.format} format`;
    case 'invalid_union': {
      const options = issue.errors.flatMap((branch) => branch.map(expectedOf)).filter((text) => text !== undefined);
      return options.length > 0 ? [...new Set(options)].join(' or ') : 'a value that matches exactly one option';
    }
    case 'invalid_key':
      return `valid keys in this ${issue.origin}`;
    case 'invalid_element':
      return `valid values in this ${issue.origin}`;
    default:
      return undefined;
  }
}

/** What was got: the value, and for text or a list its length too (the value may be cut short). */
function got(input: unknown): string {
  const length =
    typeof input === 'string'
      ? ` (${count(input.length, 'character')})`
      : Array.isArray(input)
        ? ` (${count(input.length, 'item')})`
        : '';
  return `got ${describeValue(input)}${length}`;
}

/**
 * The message of one zod issue: what was expected and, when zod reported the input (always to an error map; to a
 * parsed issue with `reportInput: true`, as the client and the testing kit parse), what was got.
 */
export function messageOf(issue: core.$ZodIssue): string {
  const hasInput = 'input' in issue;
  const input = hasInput ? issue.input : undefined;
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map(describe).join(', ');
    return `Unknown field${issue.keys.length === 1 ? '' : 's'} ${keys}: not in the spec (check the spelling)`;
  }
  const expected = expectedOf(issue);
  // A rule's own message, written where the rule is (a refinement); it already says what was expected.
  if (expected === undefined) {
    // The input of an object-level rule is the whole object: not worth repeating in the message.
    const shown = input !== undefined && (typeof input !== 'object' || input === null);
    return `${issue.message}${shown ? `; got ${describe(input)}` : ''}`;
  }
  if (!hasInput) return `Expected ${expected}`;
  if (input === undefined) return `Required (${expected})`;
  const lengthMatters = issue.code === 'too_small' || issue.code === 'too_big';
  return `Expected ${expected}; ${lengthMatters ? got(input) : `got ${describe(input)}`}`;
}

/**
 * The params that give a schema of the SDK its own messages, for users who call `.safeParse` themselves: zod asks a
 * schema's own error map first, so its issues read the same whatever locale (or none) the user's zod has loaded.
 * The raw issue zod passes here always carries the input, so the message can say what was got.
 */
export const SDK_MESSAGES = {
  // A rule without a message of its own is left to zod (the user's error map or locale).
  error: (issue: core.$ZodRawIssue): string | undefined =>
    issue.code === 'custom' && issue.message === undefined ? undefined : messageOf(issue as core.$ZodIssue),
} as const;
