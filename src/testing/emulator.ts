import { abortableDelay } from '../internal/abort.js';
import { isKeyShaped, readBearer } from './api-key.js';
import { Directory } from './directory.js';
import type { MockEmulator } from './emulator-types.js';
import { buildDocumentEvent, buildInventoryEvent } from './event-fixtures.js';
import { checkFault, faultedOutcome } from './faults.js';
import { type Outcome, toFetchResponse } from './outcome.js';
import { RateWindow } from './rate-window.js';
import { RequestLog } from './request-log.js';
import { matchRoute, routeRequest } from './router.js';
import {
  DEFAULT_MOCK_BASE_URL,
  type MockDocumentOptions,
  type MockFault,
  type MockServiceOptions,
  type RecordedRequest,
  type WebhookDelivery,
  type WebhookTarget,
} from './types.js';
import { checkWebhookTarget, deliverWebhook } from './webhook-emitter.js';

/** The internal entry point of transports: the outcome of a request, before it is rendered. */
export const DECIDE = Symbol('invoicing-service-sdk.mock.decide');

/** The internal hooks the dashboard uses (not part of the public API). */
export const INTERNALS = Symbol('invoicing-service-sdk.mock.internals');

/** A webhook event as the mock posts it. */
export interface MockEvent {
  event_id: string;
  event_type: string;
  data: unknown;
}

/**
 * Something that happened in the emulator, for observers such as the dashboard. `authorization` is the raw header:
 * an observer must hash or redact it, never keep or show it.
 */
export type MockActivity =
  | {
      readonly kind: 'request';
      readonly entry: RecordedRequest;
      readonly authorization: string | null;
      readonly answeredAt: number;
      readonly outcome: Outcome;
    }
  | {
      readonly kind: 'webhook';
      readonly event: MockEvent;
      readonly target: WebhookTarget;
      readonly startedAt: number;
      readonly endedAt: number;
      readonly result: { readonly delivery: WebhookDelivery } | { readonly error: string };
    }
  | { readonly kind: 'state' }
  | { readonly kind: 'reset' };

/** The emulator's internal hooks: observing it, delivering webhooks it records, and faults that stay on. */
export interface EmulatorInternals {
  /** Calls `listener` for every activity from now on; returns the function that stops it. */
  observe(listener: (activity: MockActivity) => void): () => void;
  /** Delivers an event as `emitWebhook` does, and reports the delivery to observers (resolves or rejects likewise). */
  deliver(event: MockEvent, target: WebhookTarget): Promise<WebhookDelivery>;
  /** The `webhook` option, if any. */
  readonly webhook: WebhookTarget | undefined;
  /** A fault applied to every request that finds no queued fault (`undefined`: none). */
  readonly standingFault: Readonly<MockFault> | undefined;
  /** Sets or clears the standing fault. @throws {TypeError} when the fault is invalid (as `failNext`). */
  setStandingFault(fault: MockFault | undefined): void;
  /** Whether the default company is connected to the portal. */
  portalConnected(): boolean;
}

/** A {@link MockEmulator} with the internal entry point its transports use. */
export interface EmulatorCore extends MockEmulator {
  /** Decides the answer. `receivedAt` is when the request's headers arrived, if the transport knows it. */
  [DECIDE](request: Request, receivedAt?: number): Promise<Outcome>;
  /** Hooks for the dashboard. */
  readonly [INTERNALS]: EmulatorInternals;
  /** The emulator's clock. */
  readonly now: () => number;
}

const defaultNow = () => performance.timeOrigin + performance.now();

const DOCUMENT_OPTION_KEYS = new Set(['hashId', 'companyId']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The options of `addDocument`: an object, a string (short for `{ hashId }`), or the deprecated two-argument form
 * `(hashId | undefined, { companyId })`. @throws {TypeError} naming the argument that is wrong.
 */
function documentOptions(first: unknown, deprecatedOptions: unknown): MockDocumentOptions {
  if (deprecatedOptions !== undefined) {
    if (!isPlainObject(deprecatedOptions)) {
      throw new TypeError('addDocument: the second argument must be an object like { companyId }');
    }
    if (first !== undefined && typeof first !== 'string') {
      throw new TypeError('addDocument: pass one options object, addDocument({ hashId, companyId })');
    }
    return documentOptions({ hashId: first, companyId: deprecatedOptions.companyId }, undefined);
  }
  if (first === undefined) return {};
  if (typeof first === 'string') return { hashId: first };
  if (!isPlainObject(first)) {
    throw new TypeError(`addDocument: options must be an object like { hashId, companyId }; got ${typeof first}`);
  }
  const unknown = Object.keys(first).filter((key) => !DOCUMENT_OPTION_KEYS.has(key));
  if (unknown.length > 0) {
    throw new TypeError(`addDocument: unknown option ${unknown.join(', ')}; the options are hashId and companyId`);
  }
  for (const key of DOCUMENT_OPTION_KEYS) {
    if (first[key] !== undefined && typeof first[key] !== 'string') {
      throw new TypeError(`addDocument: ${key} must be a string; got ${typeof first[key]}`);
    }
  }
  return { hashId: first.hashId as string | undefined, companyId: first.companyId as string | undefined };
}

function basePath(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl must be an absolute URL such as '${DEFAULT_MOCK_BASE_URL}'; got '${baseUrl}'`);
  }
  return url.pathname.replace(/\/+$/, '');
}

function rateInterval(option: MockServiceOptions['rateLimit']): number | undefined {
  if (option === false) return undefined;
  const interval = option === true || option === undefined ? 1000 : (option.intervalMs ?? 1000);
  if (!Number.isFinite(interval) || interval <= 0) {
    throw new TypeError(`rateLimit.intervalMs must be a positive number of milliseconds; got ${String(interval)}`);
  }
  return interval;
}

/** Creates the emulator core, with no transport: see `createMockService` and `startMockServer`. */
export function createEmulator(options: MockServiceOptions = {}): EmulatorCore {
  const baseUrl = (options.baseUrl ?? DEFAULT_MOCK_BASE_URL).replace(/\/+$/, '');
  const prefix = basePath(baseUrl);
  const now = options.now ?? defaultNow;
  const directory = new Directory();
  const rateWindow = new RateWindow(rateInterval(options.rateLimit));
  const log = new RequestLog();
  const faults: Readonly<MockFault>[] = [];
  let closing = new AbortController();
  /** Webhook deliveries scheduled and not started yet. */
  const scheduled = new Set<ReturnType<typeof setTimeout>>();
  let companyId = '';
  if (options.apiKey !== undefined && !isKeyShaped(options.apiKey)) {
    throw new TypeError(
      "apiKey must be shaped like the service's keys (a JWT: three base64url parts joined by dots); the value is not shown",
    );
  }
  let apiKey = options.apiKey ?? '';
  let standingFault: Readonly<MockFault> | undefined;
  const observers = new Set<(activity: MockActivity) => void>();

  function notify(activity: MockActivity): void {
    for (const observer of observers) {
      try {
        observer(activity);
      } catch {
        // A failing observer must not change the answer.
      }
    }
  }

  /** Delivers an event and tells observers how it went. */
  async function deliver(event: MockEvent, target: WebhookTarget): Promise<WebhookDelivery> {
    const startedAt = now();
    try {
      // close() stops it: a receiver that never answers must not keep a test process alive for the timeout.
      const delivery = await deliverWebhook(event, target, closing.signal);
      notify({ kind: 'webhook', event, target, startedAt, endedAt: now(), result: { delivery } });
      return delivery;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      notify({ kind: 'webhook', event, target, startedAt, endedAt: now(), result: { error: message } });
      throw error;
    }
  }

  function seed(): void {
    directory.clear();
    companyId = directory.addCompany({ portalConnected: options.portalConnected ?? true });
    apiKey = directory.addApiKey({ companyId }, apiKey === '' ? undefined : apiKey);
  }
  seed();

  /** The signed `document` event of a document created through `POST /v2/doc`, when a webhook target is set. */
  function documentCreated(data: { document_type: string; serial_number: string; hash_id: string }): void {
    if (options.webhook === undefined) return;
    const event = buildDocumentEvent({ data: { ...data, message: 'Document created' } });
    // After the answer: a receiver that is slow or down never changes what the creating call got. close() clears
    // a delivery not started yet.
    const timer = setTimeout(() => {
      scheduled.delete(timer);
      deliver(event, checkWebhookTarget(options.webhook, 'documentCreated')).catch(() => {});
    }, 0);
    scheduled.add(timer);
  }

  async function decide(request: Request, arrivedAt?: number): Promise<Outcome> {
    // A gateway stamps a request when its headers arrive; the body may take longer under load.
    const receivedAt = arrivedAt ?? now();
    const path = new URL(request.url).pathname;
    const route = matchRoute(path, prefix);
    const bodyText = await request.text().catch(() => '');
    const docHashId = route.kind === 'ewaybill' ? route.docHashId : undefined;
    const entry = log.arrived({
      method: request.method,
      path,
      docHashId,
      headers: request.headers,
      bodyText,
      receivedAt,
    });
    const bearer = readBearer(request.headers.get('authorization'));
    const key = bearer.kind === 'token' ? directory.keyRecord(bearer.token) : undefined;
    entry.keyId = key?.keyId;
    entry.companyId = key?.companyId;
    if (key) rateWindow.record(key.keyId, receivedAt);
    const fault = faults.shift() ?? standingFault;
    let outcome: Outcome;
    try {
      outcome = await faultedOutcome(
        fault,
        () =>
          routeRequest(
            { request, route, prefix, bodyText, receivedAt, fault },
            { directory, rateWindow, documentCreated },
          ),
        (ms) => abortableDelay(ms, AbortSignal.any([closing.signal, request.signal])),
      );
    } catch {
      outcome = { kind: 'drop' }; // a delay cut short by close() or by the client going away
    }
    const recorded = log.answered(entry, outcome, fault);
    try {
      options.onRequest?.(recorded);
    } catch {
      // A failing observer must not change the answer.
    }
    notify({
      kind: 'request',
      entry: recorded,
      authorization: request.headers.get('authorization'),
      answeredAt: now(),
      outcome,
    });
    return outcome;
  }

  const service: EmulatorCore = {
    baseUrl,
    get apiKey() {
      return apiKey;
    },
    get companyId() {
      return companyId;
    },
    get requests() {
      return log.snapshot();
    },
    get pendingFaults() {
      return faults.length;
    },
    fetch: async (input, init) => toFetchResponse(await decide(new Request(input, init))),
    handle: async (request) => toFetchResponse(await decide(request)),
    [DECIDE]: decide,
    [INTERNALS]: {
      observe(listener) {
        observers.add(listener);
        return () => observers.delete(listener);
      },
      deliver,
      webhook: options.webhook,
      get standingFault() {
        return standingFault;
      },
      setStandingFault(fault) {
        standingFault = fault === undefined ? undefined : checkFault(fault);
        notify({ kind: 'state' });
      },
      portalConnected: () => directory.isPortalConnected(companyId),
    },
    now,
    addCompany(companyOptions = {}) {
      const id = directory.addCompany(companyOptions);
      return { companyId: id, apiKey: directory.addApiKey({ companyId: id }) };
    },
    addApiKey: (keyOptions = {}) =>
      directory.addApiKey({ ...keyOptions, companyId: keyOptions.companyId ?? companyId }),
    revokeApiKey: (key) => directory.revokeApiKey(key),
    keyIdOf: (key) => directory.keyRecord(key)?.keyId,
    addDocument: (first?: MockDocumentOptions | string, deprecatedOptions?: { companyId?: string | undefined }) => {
      const docOptions = documentOptions(first, deprecatedOptions);
      const hashId = directory.addDocument(docOptions.companyId ?? companyId, docOptions.hashId);
      notify({ kind: 'state' });
      return hashId;
    },
    getDocument: (hashId) => directory.documents().find((d) => d.hashId === hashId),
    documents: (id) => directory.documents(id),
    setPortalConnected: (connected, id) => {
      directory.setPortalConnected(id ?? companyId, connected);
      notify({ kind: 'state' });
    },
    failNext(fault, { times = 1 } = {}) {
      if (!Number.isInteger(times) || times < 1)
        throw new TypeError(`failNext: times must be an integer >= 1; got ${String(times)}`);
      const checked = checkFault(fault);
      for (let i = 0; i < times; i++) faults.push(checked);
      notify({ kind: 'state' });
    },
    clearFaults: () => {
      faults.length = 0;
      notify({ kind: 'state' });
    },
    arrivalsOf(key) {
      const keyId = directory.keyRecord(key)?.keyId;
      return keyId === undefined ? [] : rateWindow.arrivals(keyId);
    },
    emitWebhook: async (event, target) => deliver(event, checkWebhookTarget(target ?? options.webhook, 'emitWebhook')),
    sendDocumentEvent: async (overrides, target) =>
      deliver(buildDocumentEvent(overrides), checkWebhookTarget(target ?? options.webhook, 'sendDocumentEvent')),
    sendInventoryEvent: async (overrides, target) =>
      deliver(buildInventoryEvent(overrides), checkWebhookTarget(target ?? options.webhook, 'sendInventoryEvent')),
    reset() {
      seed();
      faults.length = 0;
      log.clear();
      rateWindow.clear();
      standingFault = undefined;
      notify({ kind: 'reset' });
    },
    close() {
      for (const timer of scheduled) clearTimeout(timer);
      scheduled.clear();
      closing.abort();
      closing = new AbortController();
    },
  };
  return service;
}
