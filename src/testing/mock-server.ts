import { createEmulator, DECIDE, type EmulatorCore } from './emulator.js';
import { type MockService, withHandlers } from './mock-service.js';
import { type ListenOptions, serveEmulator } from './serve.js';
import type { MockServiceOptions } from './types.js';

/** Options of {@link startMockServer}: where to listen, and the emulator's own options. */
export interface MockServerOptions extends MockServiceOptions, ListenOptions {
  /** Serve this existing service (its state is shared with its msw handlers) instead of creating one. */
  service?: MockService | undefined;
}

/** A running mock server. */
export interface MockServer {
  /**
   * The base URL including the partner prefix, for example `http://127.0.0.1:54321/api/partner`: the `baseUrl`
   * of a `ServiceClient`, as `service.baseUrl` is for msw.
   */
  readonly baseUrl: string;
  /**
   * The live dashboard, the server's root, for example `http://127.0.0.1:54321/`: open it in a browser to watch the
   * requests (the key shown as a short hash, never the key), each key's arrivals against the rate limit, the
   * documents and their e-way bills, webhook deliveries (with "send again") and switches for faults. It updates
   * itself (server-sent events at `/_dashboard/events`) and needs no network.
   */
  readonly dashboardUrl: string;
  /** @deprecated Use {@link MockServer.baseUrl} (the same value). `url` goes away in 0.3.0. */
  readonly url: string;
  /** A ready valid API key of the mock (not a secret: it exists only in this mock). */
  readonly apiKey: string;
  /** The emulator behind the server: add documents, script faults, read the request log. */
  readonly service: MockService;
  /** Stops the server, cutting open connections, scripted delays and webhook deliveries in flight. */
  close(): Promise<void>;
}

/**
 * Starts the emulated service on a real loopback HTTP server (127.0.0.1, a free port by default),
 * for tests that need a socket and for clients written in other languages.
 *
 * @example
 * const mock = await startMockServer();
 * const client = new ServiceClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl });
 * await client.createEwayBill(mock.service.addDocument(), buildEwayBillModel());
 * console.log(`Watch the calls at ${mock.dashboardUrl}`);
 * await mock.close();
 *
 * @throws {TypeError} when an option is invalid. @throws {Error} when the port cannot be bound (for example EADDRINUSE).
 */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const { service: given, port, host, allowedHosts, ...serviceOptions } = options;
  if (given !== undefined && !(typeof given === 'object' && given !== null && DECIDE in given)) {
    throw new TypeError('startMockServer: service must be a service made by createMockService');
  }
  const service = given ?? withHandlers(createEmulator(serviceOptions));
  const served = await serveEmulator(service as MockService & EmulatorCore, { port, host, allowedHosts });
  return {
    baseUrl: served.url,
    dashboardUrl: served.dashboardUrl,
    url: served.url,
    get apiKey() {
      return service.apiKey;
    },
    service,
    close: served.close,
  };
}
