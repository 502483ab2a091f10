import type { core } from 'zod/mini';
import { ValidationError, validationIssue } from '../errors/validation-error.js';
import { messageOf } from './issue-message.js';

/** Turns a zod error into a {@link ValidationError} that lists every issue with its field path. */
export function toValidationError(subject: string, error: core.$ZodError): ValidationError {
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
