import type { DocumentEventData, InventoryEventData } from '../webhooks/index.js';
import type { EventOverrides } from './event-fixtures.js';
import type {
  MockApiKeyOptions,
  MockCompanyOptions,
  MockDocument,
  MockDocumentOptions,
  MockFault,
  RecordedRequest,
  WebhookDelivery,
  WebhookTarget,
} from './types.js';

/**
 * The emulated service, whatever transport reaches it: its state (companies, keys, documents), scripted faults,
 * the request log and webhook emission. `createMockService` adds msw handlers to it.
 */
export interface MockEmulator {
  /** The base URL the msw handlers answer on (including the partner prefix). */
  readonly baseUrl: string;
  /** A ready valid API key of the default company, allowed everything. Not a secret: it exists only in this mock. */
  readonly apiKey: string;
  /** The id of the default company. */
  readonly companyId: string;
  /**
   * What arrived, oldest first (frozen copies; never holding an API key). Bounded: the newest 10,000 requests, of
   * which the newest 200 keep their body, each at most 64 KiB of text (see `RecordedRequest.bodyKept`).
   */
  readonly requests: readonly RecordedRequest[];
  /** How many scripted faults are still queued. */
  readonly pendingFaults: number;
  /**
   * A `fetch` answered by the emulator itself, with no network and no msw: `new ServiceClient({ fetch: service.fetch })`.
   * A dropped connection rejects with a `TypeError`, as fetch does.
   */
  readonly fetch: typeof globalThis.fetch;
  /** Answers one request. The core that msw handlers, the HTTP server and {@link MockEmulator.fetch} all use. */
  handle(request: Request): Promise<Response>;
  /** Adds a company with its own full-permission key. @throws {TypeError} when the id is taken. */
  addCompany(options?: MockCompanyOptions): { companyId: string; apiKey: string };
  /**
   * Adds an API key (a fresh random JWT-shaped string) and returns it.
   * @example const readOnly = service.addApiKey({ canCreateEwayBill: false }); // 401 FORBIDDEN on create
   * @throws {TypeError} when the company is unknown.
   */
  addApiKey(options?: MockApiKeyOptions): string;
  /** Makes a key unknown (401 UNAUTHORIZED from then on), as regenerating it in the dashboard does. */
  revokeApiKey(apiKey: string): boolean;
  /** The public id of a key (for example `'key_2'`) as it appears in {@link MockEmulator.requests}. */
  keyIdOf(apiKey: string): string | undefined;
  /**
   * Adds a document and returns its hash id (a random `doc_…` one when none is given), of the default company
   * unless `companyId` names another. A string is short for `{ hashId }`.
   * @example service.addDocument(); service.addDocument('INV-1'); service.addDocument({ companyId: other.companyId });
   * @throws {TypeError} when the options are not an object or a string, the hash id is taken or the company is unknown.
   */
  addDocument(options?: MockDocumentOptions | string): string;
  /**
   * The former two-argument form.
   * @deprecated Use `addDocument({ hashId, companyId })`. This form still works and goes away in 0.3.0.
   */
  addDocument(hashId: string | undefined, options: { companyId?: string | undefined }): string;
  /** A document and the e-way bill generated for it, if any. */
  getDocument(hashId: string): MockDocument | undefined;
  /** Every document, of one company or of all. */
  documents(companyId?: string): MockDocument[];
  /** Connects or disconnects a company (the default one) from the e-way bill portal. */
  setPortalConnected(connected: boolean, companyId?: string): void;
  /**
   * Queues a fault for the next request (or the next `times` requests), after any already queued.
   * `{ loseAnswer: true }` is the recovery case to test: the e-way bill is generated, then the connection is dropped
   * instead of answering, so the client cannot know it succeeded; retrying the same document gives PORTAL_ERROR_604
   * (`isAlreadyGenerated(error)` is true).
   * @example service.failNext({ portalError: 238 }); service.failNext({ status: 500 }, { times: 2 });
   * @example service.failNext({ loseAnswer: true }); // generated, answer lost: ConnectionError, mayHaveSucceeded
   * @throws {TypeError} when the fault is not one of the documented shapes.
   */
  failNext(fault: MockFault, options?: { times?: number | undefined }): void;
  /** Removes every queued fault. */
  clearFaults(): void;
  /** Arrival times (the `now` clock) of every request of a key, oldest first, including refused ones. */
  arrivalsOf(apiKey: string): number[];
  /**
   * Posts a signed event (the spec's envelope, `X-Signature`, `Content-Type: application/json`) to `target`
   * or the `webhook` option, and resolves with the receiver's status.
   * @throws {TypeError} when there is no valid target. @throws {Error} when the receiver is unreachable or too slow,
   *   or `close()` stopped the delivery.
   */
  emitWebhook(
    event: { event_id: string; event_type: string; data: unknown },
    target?: WebhookTarget,
  ): Promise<WebhookDelivery>;
  /** {@link MockEmulator.emitWebhook} of `buildDocumentEvent(overrides)`. */
  sendDocumentEvent(overrides?: EventOverrides<DocumentEventData>, target?: WebhookTarget): Promise<WebhookDelivery>;
  /** {@link MockEmulator.emitWebhook} of `buildInventoryEvent(overrides)`. */
  sendInventoryEvent(overrides?: EventOverrides<InventoryEventData>, target?: WebhookTarget): Promise<WebhookDelivery>;
  /**
   * Back to the state at creation: the default company (with the same `apiKey` and portal setting) and nothing else;
   * no documents, faults, log entries or rate-limit history.
   */
  reset(): void;
  /**
   * Cuts short every scripted delay in progress (those requests end as dropped) and every webhook delivery in flight or
   * scheduled (an emitting call rejects). Later requests are still answered.
   */
  close(): void;
}
