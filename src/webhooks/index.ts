/**
 * Receiving webhooks: verification, typed events, handlers for Fetch, Node and Fastify, de-duplication,
 * URL checks and signing. Edge-safe: no client code and no Node built-in.
 *
 * @module invoicing-service-sdk/webhooks
 */

// The webhook receiving side: verification, events, handlers, de-duplication, URL checks, signing.
// Nothing here imports a node: module, so the main entry stays loadable in edge runtimes.

export type { ValidationIssue } from '../errors/validation-error.js';
export type { WarnSink } from '../internal/callback.js';
export type { CryptoChoice, CryptoPath } from './crypto-backend.js';
export type { DedupeClaim, WebhookDedupeStore } from './dedupe-store.js';
export type { WebhookVerificationReason } from './errors.js';
export { WebhookPayloadError, WebhookVerificationError } from './errors.js';
export { INVENTORY_MOVEMENTS } from './event-fields.js';
export { DocumentEventDataSchema, InventoryEventDataSchema, WebhookEnvelopeSchema } from './event-schemas.js';
export type {
  DocumentEvent,
  DocumentEventData,
  InventoryEvent,
  InventoryEventData,
  KnownWebhookEvent,
  UnknownEvent,
  WebhookEvent,
  WebhookEventType,
} from './events.js';
export { UNKNOWN_EVENT_TYPE, UNMAPPED_PARTNER_PRODUCT_ID, WEBHOOK_EVENT_TYPES } from './events.js';
export type { FetchWebhookHandler } from './fetch-handler.js';
export { createWebhookHandler } from './fetch-handler.js';
export type { WebhookErrorInfo, WebhookHandlerOptions } from './handler-options.js';
export type { AddressKind } from './ip-address.js';
export type { MemoryDedupeStore, MemoryDedupeStoreOptions } from './memory-dedupe-store.js';
export { createMemoryDedupeStore } from './memory-dedupe-store.js';
export type {
  FastifyReplyLike,
  FastifyRequestLike,
  NodeHeaders,
  NodeRequestLike,
  NodeResponseLike,
  NodeWebhookHandler,
} from './node-adapter.js';
export { createNodeWebhookHandler } from './node-adapter.js';
export type { RawBody } from './raw-body.js';
export type { WebhookSecret } from './secrets.js';
export { signWebhook, signWebhookAsync } from './sign.js';
export type { ParseWebhookTimestampOptions, WebhookTimeZone } from './timestamp.js';
export { parseWebhookTimestamp } from './timestamp.js';
export type { VerifyWebhookOptions } from './verify.js';
export { verifyWebhook, verifyWebhookSignature } from './verify.js';
export type { WebhookUrlCheck, WebhookUrlReason, WebhookUrlReasonCode } from './webhook-url.js';
export { checkWebhookUrl, isSafeWebhookUrl } from './webhook-url.js';
