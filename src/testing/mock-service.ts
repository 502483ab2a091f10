import type { HttpHandler } from 'msw';
import { createEmulator, DECIDE, type EmulatorCore } from './emulator.js';
import type { MockEmulator } from './emulator-types.js';
import { loadMsw } from './msw-loader.js';
import type { Outcome } from './outcome.js';
import { toFetchResponse } from './outcome.js';
import type { MockServiceOptions } from './types.js';

/** The emulated service, with msw request handlers for `setupServer(...service.handlers)`. */
export interface MockService extends MockEmulator {
  /**
   * msw handlers answering every request under {@link MockEmulator.baseUrl} with the emulator.
   * A dropped connection is `HttpResponse.error()` (fetch rejects with a `TypeError`).
   * Only this property needs msw (2 or 3, an optional peer dependency); it is built on first read.
   * @throws {Error} on first read when msw is not installed, or cannot be loaded (Jest's default CommonJS mode:
   * use Jest's ESM mode, see docs/testing.md).
   */
  readonly handlers: readonly HttpHandler[];
}

/**
 * Creates an emulator of the service that follows the spec: companies and keys, documents, authentication,
 * validation of every field rule, the rate limit, the portal connection, scripted faults, a request log
 * and signed webhook emission. Serve it with msw (`service.handlers`), a real socket (`startMockServer`)
 * or call it directly (`service.fetch`).
 *
 * @example
 * import { setupServer } from 'msw/node';
 * import { ServiceClient } from 'invoicing-service-sdk';
 * import { buildEwayBillModel, createMockService } from 'invoicing-service-sdk/testing';
 *
 * const service = createMockService({ rateLimit: false });
 * const server = setupServer(...service.handlers);
 * server.listen({ onUnhandledFrame: 'error' });
 * const client = new ServiceClient({ apiKey: service.apiKey, baseUrl: service.baseUrl });
 * await client.createEwayBill(service.addDocument(), buildEwayBillModel());
 *
 * @throws {TypeError} when an option is invalid (for example a `baseUrl` that is not a URL).
 */
export function createMockService(options: MockServiceOptions = {}): MockService {
  return withHandlers(createEmulator(options));
}

/**
 * Adds msw handlers to an emulator core (the same object, so its state is shared). They are built on first read of
 * `handlers`, so a core served only by `startMockServer` or `service.fetch` never loads msw.
 */
export function withHandlers(core: EmulatorCore): MockService & EmulatorCore {
  let handlers: readonly HttpHandler[] | undefined;
  return Object.defineProperty(core, 'handlers', {
    enumerable: true,
    get(): readonly HttpHandler[] {
      if (handlers !== undefined) return handlers;
      const { http, HttpResponse } = loadMsw();
      const render = (outcome: Outcome): Response =>
        outcome.kind === 'drop' ? HttpResponse.error() : toFetchResponse(outcome);
      handlers = Object.freeze([
        http.all(`${core.baseUrl}/*`, async ({ request }) => render(await core[DECIDE](request))),
      ]);
      return handlers;
    },
  }) as MockService & EmulatorCore;
}
