/**
 * The client (`ServiceClient`), its errors, and the e-way bill model's lists, schemas and types.
 * The names of the subpaths are re-exported here for one minor version; import them from their subpath.
 *
 * @module invoicing-service-sdk
 */

// The public surface of invoicing-service-sdk. Every exported name is listed here.

export type {
  EwayBillBatchClients,
  EwayBillBatchItem,
  EwayBillBatchOptions,
  EwayBillBatchProgress,
  EwayBillBatchResult,
} from './client/batch.js';
export { createEwayBills } from './client/batch.js';
export type { ApiKeySource } from './client/credentials.js';
export type { ClientHooks, Logger, RequestEvent, ResponseEvent, RetryEvent } from './client/events.js';
export type { EwayBillCreator, EwayBillOnceOptions, EwayBillOnceOutcome, EwayBillOnceResult } from './client/once.js';
export { createEwayBillOnce } from './client/once.js';
export type { RequestOptions, ServiceClientOptions } from './client/options.js';
export type { QueryValue, StandardResult, StandardSchemaV1 } from './client/request-input.js';
export { SDK_VERSION } from './client/runtime.js';
export type { EwayBillResult, ResponseMeta, ServiceRequestOptions } from './client/service-client.js';
export { ServiceClient } from './client/service-client.js';
export type { HttpMethod } from './client/transport.js';
export type {
  ApiErrorInit,
  RequestSummary,
  ServiceErrorOptions,
  TransportErrorInit,
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
export type {
  GstinCheck,
  GstinProblem,
  GstStateCode,
  ParsedGstin,
  PortalErrorCategory,
  PortalErrorDescription,
  PreflightContext,
  PreflightFinding,
  PreflightMode,
  PreflightRule,
  RegistrationCheck,
  RegistrationKind,
  TransporterIdCheck,
  TransporterIdKind,
} from './gst/index.js';
export {
  checkGstin,
  checkRegistration,
  checkTransporterId,
  describePortalError,
  gstinCheckCharacter,
  isValidGstin,
  isValidTransporterId,
  isValidVehicleNumber,
  NIC_SANDBOX_GSTINS,
  normalizeVehicleNumber,
  PORTAL_ERROR_CATEGORIES,
  PORTAL_ERROR_CATEGORY_MEANINGS,
  PREFLIGHT_MODES,
  PREFLIGHT_RULE_PORTAL_CODES,
  PREFLIGHT_RULES,
  parseGstin,
  preflightError,
  preflightEwayBill,
  STATE_CODES,
  stateCode,
  stateFromCode,
  stateFromGstin,
  UNREGISTERED_PERSON,
} from './gst/index.js';
export type {
  Country,
  EwayBillAddress,
  EwayBillModel,
  EwayBillModelFields,
  OtherTransaction,
  ShipToTransaction,
  ShipToTransactionType,
  State,
  SubSupplyType,
  SupplyType,
  TransactionType,
  TransportMode,
  VehicleType,
} from './model/index.js';
export {
  COUNTRIES,
  EwayBillAddressSchema,
  EwayBillModelSchema,
  formatServiceDate,
  isServiceDate,
  STATES,
  SUB_SUPPLY_TYPES,
  SUPPLY_TYPES,
  TRANSACTION_TYPES,
  TRANSACTION_TYPES_REQUIRING_SHIP_TO_GSTIN,
  TRANSPORT_MODES,
  VEHICLE_TYPES,
} from './model/index.js';
export { createProcessRateLimiter, type ProcessRateLimiter } from './throttle/process-rate-limiter.js';
export type { ProcessRateLimiterOptions } from './throttle/process-rate-limiter-options.js';
export type { RateLimiter, ReleaseSlot, SlotOutcome } from './throttle/rate-limiter.js';

export type {
  CryptoChoice,
  CryptoPath,
  DedupeClaim,
  DocumentEvent,
  DocumentEventData,
  FastifyReplyLike,
  FastifyRequestLike,
  FetchWebhookHandler,
  InventoryEvent,
  InventoryEventData,
  KnownWebhookEvent,
  MemoryDedupeStore,
  MemoryDedupeStoreOptions,
  NodeRequestLike,
  NodeResponseLike,
  NodeWebhookHandler,
  ParseWebhookTimestampOptions,
  RawBody,
  UnknownEvent,
  VerifyWebhookOptions,
  WarnSink,
  WebhookDedupeStore,
  WebhookErrorInfo,
  WebhookEvent,
  WebhookEventType,
  WebhookHandlerOptions,
  WebhookSecret,
  WebhookTimeZone,
  WebhookUrlCheck,
  WebhookUrlReason,
  WebhookUrlReasonCode,
  WebhookVerificationReason,
} from './webhooks/index.js';
export {
  checkWebhookUrl,
  createMemoryDedupeStore,
  createNodeWebhookHandler,
  createWebhookHandler,
  DocumentEventDataSchema,
  INVENTORY_MOVEMENTS,
  InventoryEventDataSchema,
  isSafeWebhookUrl,
  parseWebhookTimestamp,
  signWebhook,
  signWebhookAsync,
  UNKNOWN_EVENT_TYPE,
  UNMAPPED_PARTNER_PRODUCT_ID,
  verifyWebhook,
  verifyWebhookSignature,
  WEBHOOK_EVENT_TYPES,
  WebhookEnvelopeSchema,
  WebhookPayloadError,
  WebhookVerificationError,
} from './webhooks/index.js';
