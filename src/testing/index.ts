/**
 * The testing kit: an emulator of the service as a mock server or msw handlers, fixtures, and webhook
 * events signed as the service signs them. msw is an optional peer dependency.
 *
 * @module invoicing-service-sdk/testing
 */

// The testing kit: `invoicing-service-sdk/testing`. msw is an optional peer dependency: only `service.handlers` needs it
// (see msw-loader.ts); the mock server, the fixtures and signWebhook work without it. The main entry never loads msw.

export { signWebhook } from '../webhooks/index.js';
export type { MockEmulator } from './emulator-types.js';
export type { DocumentEventPayload, EventOverrides, InventoryEventPayload } from './event-fixtures.js';
export { buildDocumentEvent, buildInventoryEvent, formatEventTimestamp } from './event-fixtures.js';
export type { MockServer, MockServerOptions } from './mock-server.js';
export { startMockServer } from './mock-server.js';
export type { MockService } from './mock-service.js';
export { createMockService } from './mock-service.js';
export type { EwayBillModelOverrides } from './model-fixture.js';
export { buildEwayBillModel, FIXTURE_SHIP_TO_GSTIN } from './model-fixture.js';
export { MOCK_PRODUCTS } from './other-endpoints.js';
export {
  ALREADY_GENERATED_PORTAL_CODE,
  MOCK_ERROR_CODES,
  NOT_CONNECTED_PORTAL_CODE,
} from './outcome.js';
export type { ListenOptions } from './serve.js';
export type {
  MockApiKeyOptions,
  MockCompanyOptions,
  MockDocument,
  MockDocumentOptions,
  MockEwayBill,
  MockFault,
  MockServiceOptions,
  RecordedRequest,
  WebhookDelivery,
  WebhookTarget,
} from './types.js';
export { DEFAULT_MOCK_BASE_URL } from './types.js';
