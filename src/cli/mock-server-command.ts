import { createEmulator } from '../testing/emulator.js';
import { buildEwayBillModel } from '../testing/model-fixture.js';
import { serveEmulator } from '../testing/serve.js';
import type { RecordedRequest } from '../testing/types.js';

/** Where the command writes: stdout and stderr in the CLI, buffers in tests. */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

/** Options of {@link runMockServer}. */
export interface MockServerCommandOptions {
  readonly port: number;
  readonly host: string;
  readonly rateLimit: boolean;
  readonly portalConnected: boolean;
  readonly quiet: boolean;
}

function logLine(entry: RecordedRequest): string {
  const time = new Date().toISOString().slice(11, 23);
  const answer =
    entry.status === undefined ? 'dropped' : `${entry.status}${entry.errorCode ? ` ${entry.errorCode}` : ''}`;
  // The key's public id only: a log line never carries the key.
  return `[mock ${time}] ${entry.method} ${entry.path} -> ${answer}${entry.keyId ? ` (${entry.keyId})` : ''}`;
}

/**
 * Runs the mock service until SIGINT or SIGTERM, then closes it and resolves with exit code 0.
 * Resolves with 1 when the port cannot be bound. It never loads msw.
 */
export async function runMockServer(options: MockServerCommandOptions, io: CliOutput): Promise<number> {
  const service = createEmulator({
    rateLimit: options.rateLimit,
    portalConnected: options.portalConnected,
    onRequest: options.quiet ? undefined : (entry) => io.out(logLine(entry)),
  });
  let served: Awaited<ReturnType<typeof serveEmulator>>;
  try {
    served = await serveEmulator(service, { port: options.port, host: options.host });
  } catch (error) {
    const code = (error as { code?: string }).code;
    const hint = code === 'EADDRINUSE' ? ' (the port is in use: pass another --port, or --port 0 for a free one)' : '';
    io.err(`Could not listen on ${options.host}:${options.port}: ${(error as Error).message}${hint}`);
    return 1;
  }
  const document = service.addDocument('doc_demo_0001');
  const body = JSON.stringify(buildEwayBillModel());
  io.out('invoicing-service-sdk mock service: an emulator of the spec, with no account and no network.');
  io.out(`  Base URL:  ${served.url}`);
  io.out(`  Document:  ${document}  (a hash_id to try; the mock holds it)`);
  io.out('  Test API key of this mock (not a secret: it exists only in this process):');
  io.out(`  export SERVICE_BASE_URL=${served.url} SERVICE_API_KEY=${service.apiKey}`);
  io.out('Try:');
  io.out(
    `  curl -s -X POST "$SERVICE_BASE_URL/v2/ewaybill/${document}" -H "Authorization: Bearer $SERVICE_API_KEY" \\`,
  );
  io.out(`    -H "Content-Type: application/json" -d '${body}'`);
  io.out('Press Ctrl+C to stop.');
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  io.out(`Received ${signal}; stopping the mock service.`);
  await served.close();
  return 0;
}
