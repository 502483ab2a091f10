import { requestIdFrom } from './request-id.js';
import { ServiceError } from './service-error.js';

/** The request an error answered, without its headers (so never the API key). */
export interface RequestSummary {
  readonly method: string;
  readonly url: string;
}

/** What an {@link ApiError} is built from. */
export interface ApiErrorInit {
  /** The HTTP status of the answer. */
  status: number;
  /** The service's `error_code`, when the body had one. */
  errorCode?: string | undefined;
  /** The service's `message`, or a description of a body that was not the error envelope. */
  message: string;
  /** The service's `errors` object (its inner shape is not specified). */
  errors?: Record<string, unknown> | undefined;
  /** The body as received: the parsed JSON, or the text of a body that is not JSON (its first 64 KiB). */
  body?: unknown;
  /** The answer's headers, as a plain object with lower-case names. */
  headers?: Record<string, string>;
  /** The request this answers. */
  request?: RequestSummary | undefined;
  /** Whether the service may have acted on the request. Defaults to true for a 5xx, false otherwise. */
  mayHaveSucceeded?: boolean | undefined;
}

/**
 * Any error answer of the service: a non-2xx status, or a 2xx whose body says `success: false`.
 * The subclasses name the answers the spec describes; an unknown `error_code` still yields an `ApiError`.
 */
export class ApiError extends ServiceError {
  static override readonly code: string = 'API_ERROR';
  override name = 'ApiError';
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The service's `error_code` (for example `'INVALID_HASH_ID'` or `'PORTAL_ERROR_238'`), when given. */
  readonly errorCode: string | undefined;
  /** The service's `errors` object, when given. Its inner shape is not specified by the service. */
  readonly errors: Record<string, unknown> | undefined;
  /** The body as received: the parsed JSON, or the text of a body that is not JSON (its first 64 KiB). */
  readonly body: unknown;
  /** The answer's headers, lower-case names. */
  readonly headers: Record<string, string>;
  /** The method and URL of the request, never its headers. */
  readonly request: RequestSummary | undefined;
  /**
   * Whether the service may have acted on the request despite the error: true for a 5xx and for a 2xx whose body
   * could not be read as an answer. Check (for example with `isAlreadyGenerated` on a retry) before sending again.
   */
  readonly mayHaveSucceeded: boolean;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.errorCode = init.errorCode;
    this.errors = init.errors;
    this.body = init.body;
    this.headers = init.headers ?? {};
    this.request = init.request;
    this.mayHaveSucceeded = init.mayHaveSucceeded ?? init.status >= 500;
  }

  /**
   * The request id of the answer (`x-request-id` or a like header), when one was sent: quote it to the service's
   * support. Read from {@link ApiError.headers}; not a field of its own, so `toJSON` is unchanged.
   */
  get requestId(): string | undefined {
    return requestIdFrom(this.headers);
  }
}

/** 401 `UNAUTHORIZED`: the API key is missing, malformed or invalid (spec, Authentication rule 6). */
export class UnauthorizedError extends ApiError {
  static override readonly code: string = 'UNAUTHORIZED';
  override name = 'UnauthorizedError';
}

/** 401 `FORBIDDEN`: the key is valid but not allowed to perform the action (spec, Authentication rule 7). */
export class ForbiddenError extends ApiError {
  static override readonly code: string = 'FORBIDDEN';
  override name = 'ForbiddenError';
}

/** 400 `INVALID_HASH_ID`: the `doc_hash_id` does not identify a document of the key's company. */
export class InvalidHashIdError extends ApiError {
  static override readonly code: string = 'INVALID_HASH_ID';
  override name = 'InvalidHashIdError';
}

/** Any other 400 answer. */
export class BadRequestError extends ApiError {
  static override readonly code: string = 'BAD_REQUEST';
  override name = 'BadRequestError';
}

/** 429: the service's rate limit (1 request per second per key) was exceeded. */
export class RateLimitError extends ApiError {
  static override readonly code: string = 'RATE_LIMITED';
  override name = 'RateLimitError';
  /** Seconds to wait, from the `Retry-After` header (seconds or an HTTP date), when given. */
  readonly retryAfter: number | undefined;

  constructor(init: ApiErrorInit & { retryAfter?: number | undefined }) {
    super(init);
    this.retryAfter = init.retryAfter;
  }
}

/** A 5xx answer: the service failed. It may or may not have acted on the request. */
export class ServerError extends ApiError {
  static override readonly code: string = 'SERVER_ERROR';
  override name = 'ServerError';
}

/**
 * A 3xx answer. The e-way bill POST never follows a redirect: a gateway that answers POST/Redirect/GET, or points
 * elsewhere, could otherwise make one call generate several bills or send the key and the body to another origin.
 * The request reached something that answered, so the service may have acted on it (`mayHaveSucceeded` is true).
 */
export class RedirectError extends ApiError {
  static override readonly code: string = 'REDIRECT';
  override name = 'RedirectError';
  /** The `Location` the answer pointed to (with the API key redacted), when it gave one. */
  readonly location: string | undefined;

  constructor(init: ApiErrorInit & { location?: string | undefined }) {
    super({ ...init, mayHaveSucceeded: true });
    this.location = init.location;
  }
}

/** Why a 2xx answer is an {@link UnexpectedResponseError}. */
export type UnexpectedResponseReason =
  /** Its body is not JSON: a proxy's HTML page, JSON cut short, or (where an answer is required) no body at all. */
  | 'not-json'
  /** Its body is longer than `maxResponseBytes`: reading stopped there, so it was never parsed. */
  | 'too-large'
  /** Its JSON failed the `schema` given to `request` (or the schema could not check it). */
  | 'schema';

/**
 * A success answer (2xx) the SDK cannot hand back: its body is not JSON, is longer than `maxResponseBytes`, or failed
 * the `schema` given to `request`. The service answered 2xx, so it acted: `mayHaveSucceeded` is always true; do not
 * send a non-idempotent request again without checking. `reason` says which; `issues` (for a schema) says where.
 * @example
 * catch (error) { if (error instanceof UnexpectedResponseError && error.reason === 'too-large') retryWithLargerCap() }
 */
export class UnexpectedResponseError extends ApiError {
  static override readonly code: string = 'UNEXPECTED_RESPONSE';
  override name = 'UnexpectedResponseError';
  /** Why the answer could not be handed back. */
  readonly reason: UnexpectedResponseReason;
  /** The answer's `Content-Type`, when it had one. */
  readonly contentType: string | undefined;
  /**
   * The bytes of the body the SDK read: the whole body, except for `'too-large'`, where reading stopped just past
   * `maxResponseBytes` (so this is more than the cap, and at most the cap plus one network chunk). Always set by the
   * client; `undefined` only on an error built by other code.
   */
  readonly bodyBytes: number | undefined;
  /** What the schema found, each with the path of the field in the answer; empty for another reason. */
  readonly issues: readonly {
    readonly path: readonly (string | number)[];
    readonly field: string;
    readonly message: string;
  }[];

  constructor(
    init: ApiErrorInit & {
      issues?: UnexpectedResponseError['issues'] | undefined;
      reason?: UnexpectedResponseReason | undefined;
      contentType?: string | undefined;
      bodyBytes?: number | undefined;
    },
  ) {
    super({ ...init, mayHaveSucceeded: true });
    this.issues = init.issues ?? [];
    this.reason = init.reason ?? 'schema';
    this.contentType = init.contentType;
    this.bodyBytes = init.bodyBytes;
  }
}
