import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDashboard } from './dashboard.js';
import { dashboardHosts } from './dashboard-host.js';
import type { EmulatorCore } from './emulator.js';
import { nodeListener } from './node-bridge.js';
import type { WebhookTarget } from './types.js';

/** Where the mock server listens. */
export interface ListenOptions {
  /**
   * The port; 0 picks a free one.
   * @default 0
   */
  port?: number | undefined;
  /**
   * The interface. The default is loopback only, so the mock is never reachable from other machines. Another
   * address (`'0.0.0.0'`) opens the API routes and the dashboard to whoever can reach the port: the dashboard's
   * `Host` check stops a web page's DNS rebinding, not another machine that sends its own `Host` header.
   * @default '127.0.0.1'
   */
  host?: string | undefined;
  /**
   * More `Host` names the dashboard answers to (its page, its event stream and every `/_dashboard/` endpoint), for
   * example a docker-compose service name. It always answers `localhost`, 127.0.0.0/8, `[::1]` and the `host` it
   * listens on, and answers 403 to every other name, so that a page served under another name and resolved to this
   * machine (DNS rebinding) cannot read the requests or switch faults. The API routes answer any `Host`.
   * Host names or IP addresses, without scheme or port.
   * @default []
   * @example startMockServer({ host: '0.0.0.0', allowedHosts: ['mock'] }) // http://mock:PORT/ from another container
   */
  allowedHosts?: readonly string[] | undefined;
}

/** Options of the served dashboard (internal: the CLI passes its `--webhook-url` relay's target). */
export interface DashboardServeOptions {
  /** Where the dashboard's test events go when the emulator has no `webhook` option. */
  readonly webhook?: WebhookTarget | undefined;
}

/** A running server of an emulator core. */
export interface ServedEmulator {
  /** The base URL, including the partner prefix, for example `http://127.0.0.1:4010/api/partner`. */
  readonly url: string;
  /** The live dashboard's page, the server's root, for example `http://127.0.0.1:4010/`. */
  readonly dashboardUrl: string;
  /** The port it listens on. */
  readonly port: number;
  /** Stops listening, cuts open connections and scripted delays; resolves when the server is closed. */
  close(): Promise<void>;
}

/**
 * Serves an emulator core on a real loopback HTTP socket.
 * @throws {TypeError} when an option is invalid. @throws {Error} when the port cannot be bound.
 */
export async function serveEmulator(
  core: EmulatorCore,
  options: ListenOptions = {},
  dashboardOptions: DashboardServeOptions = {},
): Promise<ServedEmulator> {
  const port = options.port ?? 0;
  const host = options.host ?? '127.0.0.1';
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TypeError(`port must be an integer from 0 to 65535; got ${String(port)}`);
  }
  const hosts = dashboardHosts(host, options.allowedHosts);
  const listener = nodeListener(core);
  let dashboard: ReturnType<typeof createDashboard> | undefined;
  const server = createServer((req, res) => {
    if (!dashboard?.handle(req, res)) listener(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const prefix = new URL(core.baseUrl).pathname.replace(/\/+$/, '');
  const url = `http://${shownHost}:${address.port}${prefix}`;
  dashboard = createDashboard(core, { baseUrl: url, webhook: dashboardOptions.webhook, hosts });
  let closed: Promise<void> | undefined;
  return {
    url,
    dashboardUrl: `http://${shownHost}:${address.port}/`,
    port: address.port,
    close() {
      closed ??= new Promise<void>((resolve) => {
        dashboard?.close();
        core.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
