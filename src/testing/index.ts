// The testing kit: `invoicing-service-sdk/testing`. It loads msw (an optional peer dependency); the main entry never does.

export { signWebhook } from '../webhooks/sign.js';
export type { MockEmulator } from './emulator-types.js';
export type { DocumentEventPayload, EventOverrides, InventoryEventPayload } from './event-fixtures.js';
export { buildDocumentEvent, buildInventoryEvent, formatEventTimestamp } from './event-fixtures.js';
export type { MockServer, MockServerOptions } from './mock-server.js';
export { startMockServer } from './mock-server.js';
export type { MockService } from './mock-service.js';
export { createMockService } from './mock-service.js';
export type { EwayBillModelOverrides } from './model-fixture.js';
export { buildEwayBillModel, FIXTURE_SHIP_TO_GSTIN } from './model-fixture.js';
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
  MockEwayBill,
  MockFault,
  MockServiceOptions,
  RecordedRequest,
  WebhookDelivery,
  WebhookTarget,
} from './types.js';
export { DEFAULT_MOCK_BASE_URL } from './types.js';
