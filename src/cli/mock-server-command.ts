import { isLoopbackHost } from '../testing/dashboard-host.js';
import { createEmulator, INTERNALS } from '../testing/emulator.js';
import { buildEwayBillModel } from '../testing/model-fixture.js';
import { serveEmulator } from '../testing/serve.js';
import type { RecordedRequest } from '../testing/types.js';
import type { CliCommand } from './args.js';
import type { CliOutput } from './output.js';
import { webhookSecretFrom } from './secret-echo.js';
import { createWebhookRelay } from './webhook-relay.js';

export type { CliOutput } from './output.js';

/** Options of {@link runMockServer}: what the command line asked for. */
export type MockServerCommandOptions = Omit<Extract<CliCommand, { kind: 'mock-server' }>, 'kind'>;

/** The hash id of the `n`th demo document (from 1): `doc_demo_0001`. */
export function demoDocumentId(n: number): string {
  return `doc_demo_${String(n).padStart(4, '0')}`;
}

function documentsLine(ids: readonly string[]): string {
  const shown = ids.length === 1 ? ids[0] : `${ids[0]} … ${ids.at(-1)}`;
  return `  Documents: ${shown}  (${ids.length}; each can get one e-way bill, a second is PORTAL_ERROR_604)`;
}

function logLine(entry: RecordedRequest): string {
  const time = new Date().toISOString().slice(11, 23);
  const answer =
    entry.status === undefined ? 'dropped' : `${entry.status}${entry.errorCode ? ` ${entry.errorCode}` : ''}`;
  // The key's public id only: a log line never carries the key.
  return `[mock ${time}] ${entry.method} ${entry.path} -> ${answer}${entry.keyId ? ` (${entry.keyId})` : ''}`;
}

/** What `--host` with an address other than loopback opens, and how to close it again. */
function exposedWarning(host: string, port: number): string {
  return [
    `Warning: --host ${host} makes the mock reachable from the network on port ${port}, not only from this machine.`,
    '  Whoever reaches that port can call the API routes and, by sending a Host header the dashboard answers to,',
    '  read every recorded request (headers and bodies; the key redacted), switch faults on and re-send signed',
    '  webhooks. The Host check stops web pages (DNS rebinding), not other machines.',
    '  Keep it local with --host 127.0.0.1 (the default). To open the dashboard from another container by its',
    '  name, pass --allowed-host <name> (repeatable); every other name gets 403.',
  ].join('\n');
}

/**
 * Runs the mock service until SIGINT or SIGTERM, then closes it and resolves with exit code 0.
 * It holds `options.documents` documents, `doc_demo_0001` and on (each can get one e-way bill), and prints them with
 * the base URL and a test key. Resolves with 1 when the port cannot be bound. It never loads msw.
 * @example await runMockServer({ port: 4010, host: '127.0.0.1', rateLimit: true, portalConnected: true, quiet: false, documents: 5 }, io)
 */
export async function runMockServer(
  options: MockServerCommandOptions,
  io: CliOutput,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  const webhookSecret = webhookSecretFrom(options.webhookSecret, '--webhook-secret', env, io);
  if (options.webhookUrl !== undefined && webhookSecret === undefined) {
    io.err('--webhook-url needs the webhook secret: pass --webhook-secret, or set WEBHOOK_SECRET.');
    return 2;
  }
  // The relay delivers through the emulator (created below, before any request), so the dashboard lists its deliveries.
  let service: ReturnType<typeof createEmulator> | undefined;
  const webhook =
    options.webhookUrl === undefined
      ? undefined
      : createWebhookRelay(options.webhookUrl, webhookSecret as string, io, options.quiet, (event, target) =>
          (service as ReturnType<typeof createEmulator>)[INTERNALS].deliver(event, target),
        );
  service = createEmulator({
    apiKey: options.apiKey,
    rateLimit: options.rateLimit,
    portalConnected: options.portalConnected,
    onRequest: (entry) => {
      if (!options.quiet) io.out(logLine(entry));
      webhook?.onRequest(entry);
    },
  });
  let served: Awaited<ReturnType<typeof serveEmulator>>;
  try {
    served = await serveEmulator(
      service,
      { port: options.port, host: options.host, allowedHosts: options.allowedHosts },
      { webhook: webhook?.target },
    );
  } catch (error) {
    const code = (error as { code?: string }).code;
    const hint = code === 'EADDRINUSE' ? ' (the port is in use: pass another --port, or --port 0 for a free one)' : '';
    io.err(`Could not listen on ${options.host}:${options.port}: ${(error as Error).message}${hint}`);
    return 1;
  }
  // Listening for the stop signals before the banner: stdout to a pipe is written synchronously on Linux, so whoever
  // reads "Press Ctrl+C" may signal at once, before the next statement runs on a loaded machine.
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  if (!isLoopbackHost(options.host)) io.err(exposedWarning(options.host, served.port));
  const ids = Array.from({ length: Math.max(1, options.documents) }, (_, i) =>
    service.addDocument(demoDocumentId(i + 1)),
  );
  const document = demoDocumentId(1);
  const body = JSON.stringify(buildEwayBillModel());
  io.out('invoicing-service-sdk mock service: an emulator of the spec, with no account and no network.');
  io.out(`  Base URL:  ${served.url}`);
  io.out(`  Dashboard: ${served.dashboardUrl}  (open it in a browser: live requests, rate limit, webhooks, faults)`);
  io.out(documentsLine(ids));
  io.out(
    options.apiKey === undefined
      ? '  Test API key of this mock (not a secret: it exists only in this process; --api-key keeps one across restarts):'
      : '  Test API key of this mock (the one given with --api-key):',
  );
  io.out(`  export SERVICE_BASE_URL=${served.url} SERVICE_API_KEY=${service.apiKey}`);
  io.out(ids.length > 1 ? `Try (and again with ${demoDocumentId(2)}, and so on):` : 'Try:');
  io.out(
    `  curl -s -X POST "$SERVICE_BASE_URL/v2/ewaybill/${document}" -H "Authorization: Bearer $SERVICE_API_KEY" \\`,
  );
  io.out(`    -H "Content-Type: application/json" -d '${body}'`);
  if (webhook) io.out(`  Webhooks: a signed document event to ${webhook.where} for each e-way bill generated`);
  io.out('Press Ctrl+C to stop.');
  const signal = await stopped;
  io.out(`Received ${signal}; stopping the mock service.`);
  await served.close();
  await webhook?.drain();
  return 0;
}
