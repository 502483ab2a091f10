import { createMockService, type MockService, startMockServer } from 'invoicing-service-sdk/testing';
import { setupServer } from 'msw/node';

/** One way to reach the emulator from a real ServiceClient. */
export interface Transport {
  service: MockService;
  baseUrl: string;
  close(): Promise<void>;
}

/** The emulator behind msw handlers (unhandled requests are errors). */
export async function viaMsw(): Promise<Transport> {
  const service = createMockService();
  const server = setupServer(...service.handlers);
  server.listen({ onUnhandledFrame: 'error' });
  return { service, baseUrl: service.baseUrl, close: async () => server.close() };
}

/** The emulator on a real loopback socket. */
export async function viaSocket(): Promise<Transport> {
  const mock = await startMockServer();
  return { service: mock.service, baseUrl: mock.baseUrl, close: mock.close };
}

/** Both, for `describe.each`. */
export const TRANSPORTS = [
  ['through msw handlers', viaMsw],
  ['through a real loopback socket', viaSocket],
] as const;
