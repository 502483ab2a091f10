import { ServiceError, type ServiceErrorOptions } from '../errors/service-error.js';
import type { ValidationIssue } from '../errors/validation-error.js';

/** Why a webhook signature was refused. */
export type WebhookVerificationReason = 'missing_signature' | 'malformed_signature' | 'signature_mismatch';

const REASON_MESSAGES: Record<WebhookVerificationReason, string> = {
  missing_signature: 'The webhook request has no X-Signature header.',
  malformed_signature: 'The X-Signature header is not a hex HMAC-SHA256 digest (64 hexadecimal characters, no prefix).',
  signature_mismatch:
    'The X-Signature header does not match the body: the request is not authentic, the webhook secret is wrong, ' +
    'or the body was changed before verification (pass the raw, unparsed body).',
};

/**
 * The webhook's `X-Signature` is missing, malformed or does not match the raw body (spec, Events, Signature).
 * Answer such a request with HTTP 401. The message never contains the secret, the expected digest
 * or the received signature.
 *
 * @example
 * catch (error) { if (error instanceof WebhookVerificationError) return new Response(null, { status: 401 }) }
 */
export class WebhookVerificationError extends ServiceError {
  static override readonly code: string = 'WEBHOOK_VERIFICATION_FAILED';
  override name = 'WebhookVerificationError';
  /** What was wrong with the signature. */
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, options: ServiceErrorOptions = {}) {
    super(REASON_MESSAGES[reason], options);
    this.reason = reason;
  }
}

const MAX_LISTED = 10;

/**
 * The signature is good but the body is not a valid webhook envelope: not UTF-8 JSON, not an object,
 * or a known event whose fields break the spec. Answer such a request with HTTP 400.
 * {@link WebhookPayloadError.issues} lists every problem with its field path (values are not repeated).
 *
 * @example
 * catch (error) { if (error instanceof WebhookPayloadError) console.warn(error.issues) }
 */
export class WebhookPayloadError extends ServiceError {
  static override readonly code: string = 'WEBHOOK_PAYLOAD_INVALID';
  override name = 'WebhookPayloadError';
  /** Every problem found, each with its field path. */
  readonly issues: readonly ValidationIssue[];
  /**
   * The event's id as the body gave it, so a refused event can be found in the service's records: `event_id` when it
   * is a string or a number, else `id` (an envelope whose `event_id` was renamed). Made safe to log: control and
   * format characters become `?`, and it is cut to 64 characters (`…` marks the cut). `undefined` when the body had
   * none, or was not a JSON object.
   * @default undefined
   */
  readonly receivedEventId: string | undefined;

  constructor(
    issues: readonly ValidationIssue[],
    options: ServiceErrorOptions & { receivedEventId?: string | undefined } = {},
  ) {
    const listed = issues.slice(0, MAX_LISTED).map((issue) => `  - ${issue.field}: ${issue.message}`);
    if (issues.length > MAX_LISTED) listed.push(`  - ... and ${issues.length - MAX_LISTED} more (see .issues)`);
    super(`Invalid webhook payload:\n${listed.join('\n')}`, options);
    this.issues = issues;
    this.receivedEventId = options.receivedEventId;
  }
}
