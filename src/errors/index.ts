// The errors' public names. The root re-exports exactly these; the testing kit imports them from here.
export type { ApiErrorInit, RequestSummary, UnexpectedResponseReason } from './api-error.js';
export {
  ApiError,
  BadRequestError,
  ForbiddenError,
  InvalidHashIdError,
  RateLimitError,
  RedirectError,
  ServerError,
  UnauthorizedError,
  UnexpectedResponseError,
} from './api-error.js';
export { isAlreadyGenerated, parsePortalCode } from './portal-code.js';
export type { PortalErrorInit } from './portal-error.js';
export { PortalError } from './portal-error.js';
export type { RateLimiterErrorOptions } from './rate-limiter-unavailable.js';
export { RateLimiterUnavailableError } from './rate-limiter-unavailable.js';
export type { ServiceErrorOptions } from './service-error.js';
export { isServiceError, ServiceError } from './service-error.js';
export type { QueueTimeoutErrorInit, TransportErrorInit } from './transport-errors.js';
export {
  AbortedAfterSendError,
  ConnectionError,
  mayHaveSucceeded,
  QueueTimeoutError,
  TimeoutError,
} from './transport-errors.js';
export type { ValidationIssue } from './validation-error.js';
export { ValidationError } from './validation-error.js';
