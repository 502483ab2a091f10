/**
 * The client (`ServiceClient`, `request`, `createEwayBill`), its errors, batches, rate limiting, and the e-way bill
 * model's two types. The model's lists and schemas are in `invoicing-service-sdk/model`; the GST checks, webhooks,
 * testing kit and Redis support in their own subpaths.
 *
 * @module invoicing-service-sdk
 */

// The public surface of invoicing-service-sdk. Every exported name is listed here.

export { createEwayBills } from './client/batch.js';
export type {
  EwayBillBatchClients,
  EwayBillBatchItem,
  EwayBillBatchOptions,
  EwayBillBatchProgress,
  EwayBillBatchResult,
} from './client/batch-types.js';
export type { HttpMethod } from './client/call.js';
export type { ApiKeySource } from './client/credentials.js';
export type {
  ClientHooks,
  Logger,
  QueuedEvent,
  RequestEvent,
  ResponseEvent,
  RetryEvent,
} from './client/events.js';
export type { PendingDocument, RecoverResult } from './client/journaled.js';
export type { EwayBillCreator, EwayBillOnceOptions, EwayBillOnceOutcome, EwayBillOnceResult } from './client/once.js';
export { createEwayBillOnce } from './client/once.js';
export type { RequestOptions, ServiceClientOptions } from './client/options.js';
export type { QueryValue, StandardSchemaV1 } from './client/request-input.js';
export { SDK_VERSION } from './client/runtime.js';
export type {
  EwayBillAnsweredResult,
  EwayBillJournalResult,
  EwayBillResult,
  RequestResult,
  ResponseMeta,
  ServiceRequestOptions,
} from './client/service-client.js';
export { ServiceClient } from './client/service-client.js';
export type {
  ApiErrorInit,
  PortalErrorInit,
  QueueTimeoutErrorInit,
  RateLimiterErrorOptions,
  RequestSummary,
  ServiceErrorOptions,
  TransportErrorInit,
  UnexpectedResponseReason,
  ValidationIssue,
} from './errors/index.js';
export {
  AbortedAfterSendError,
  ApiError,
  BadRequestError,
  ConnectionError,
  ForbiddenError,
  InvalidHashIdError,
  isAlreadyGenerated,
  isServiceError,
  mayHaveSucceeded,
  PortalError,
  parsePortalCode,
  QueueTimeoutError,
  RateLimitError,
  RateLimiterUnavailableError,
  RedirectError,
  ServerError,
  ServiceError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedResponseError,
  ValidationError,
} from './errors/index.js';
export type { EwayBillAddress, EwayBillModel } from './model/index.js';
export type { Priority } from './throttle/priority-queue.js';
export { createProcessRateLimiter, type ProcessRateLimiter } from './throttle/process-rate-limiter.js';
export type { ProcessRateLimiterOptions } from './throttle/process-rate-limiter-options.js';
export type { AcquireOptions, QueuedInfo, QueueStatus } from './throttle/queue-options.js';
export type { RateLimiter, ReleaseSlot, SlotOutcome } from './throttle/rate-limiter.js';
