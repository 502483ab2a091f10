import type { core } from 'zod/mini';
import { describeType } from '../internal/describe.js';
import { messageOf } from '../internal/issue-message.js';
import { ServiceError } from './service-error.js';

/** One problem found in the input, with the path of the field it is about. */
export interface ValidationIssue {
  /** The field's path as segments, for example `['dispatch_from', 'addr_id']`; empty for the whole input. */
  readonly path: readonly (string | number)[];
  /** The field's path written with dots, for example `'dispatch_from.addr_id'`; `'(root)'` for the whole input. */
  readonly field: string;
  /** What is wrong, in words. */
  readonly message: string;
}

const MAX_LISTED = 20;

/**
 * The input broke a rule of the spec and was not sent: no request left, and no rate-limit slot was used.
 * {@link ValidationError.issues} lists every problem with its field path.
 */
export class ValidationError extends ServiceError {
  static override readonly code: string = 'VALIDATION_ERROR';
  override name = 'ValidationError';
  /** Every problem found, each with its field path. */
  readonly issues: readonly ValidationIssue[];

  constructor(subject: string, issues: readonly ValidationIssue[]) {
    const listed = issues.slice(0, MAX_LISTED).map((issue) => `  - ${issue.field}: ${issue.message}`);
    if (issues.length > MAX_LISTED) listed.push(`  - ... and ${issues.length - MAX_LISTED} more (see .issues)`);
    const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
    super(`Invalid ${subject}: ${count}\n${listed.join('\n')}`);
    this.issues = issues;
  }

  /**
   * The ValidationError of a failed `safeParse` of one of the SDK's schemas (or any zod 4 schema), with the messages
   * and field paths the client itself reports. Parse with `{ reportInput: true }`, as the client does, for messages
   * that also say what was got.
   * @param error The `error` of a failed `safeParse`.
   * @param subject What was checked, for the message: `Invalid ${subject}: 2 problems`.
   * @example
   * const result = EwayBillModelSchema.safeParse(fromErp, { reportInput: true });
   * if (!result.success) throw ValidationError.fromZodError(result.error, 'e-way bill model');
   */
  static fromZodError(error: core.$ZodError, subject = 'input'): ValidationError {
    const issues = (error as { issues?: unknown } | null | undefined)?.issues;
    if (!Array.isArray(issues)) {
      throw new TypeError(
        `ValidationError.fromZodError: error must be the error of a failed safeParse (with issues); got ${describeType(error)}`,
      );
    }
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
}

/** Makes a {@link ValidationIssue} from a path and a message. */
export function validationIssue(path: readonly (string | number)[], message: string): ValidationIssue {
  return { path, field: path.length === 0 ? '(root)' : path.join('.'), message };
}
