#!/usr/bin/env node
// The `invoicing-service-sdk` command. Each command loads only what it runs: mock-server never loads msw or the
// SDK's client; `ewaybill create` loads the client.

import { SDK_VERSION } from '../client/runtime.js';
import { parseCommandLine } from './args.js';
import type { CliOutput } from './output.js';
import { USAGE } from './usage.js';

/** Aborts on the first SIGINT or SIGTERM; a second one ends the process as usual. */
function stopSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = () => {
    dispose();
    controller.abort();
  };
  const dispose = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return { signal: controller.signal, dispose };
}

/**
 * Runs the command line and resolves with the exit code: 0 done, 1 failure, 2 usage error, 130 stopped.
 * @example await main(['mock-server', '--port', '4010'], io)
 */
export async function main(argv: readonly string[], io: CliOutput): Promise<number> {
  const command = parseCommandLine(argv);
  switch (command.kind) {
    case 'help':
      io.out(USAGE);
      return 0;
    case 'version':
      io.out(SDK_VERSION);
      return 0;
    case 'usage-error':
      // The problem and where to read more: the whole usage would bury the one line that matters.
      io.err(`${command.message}\nRun \`invoicing-service-sdk --help\` for every command and option.`);
      return 2;
    case 'mock-server': {
      const { runMockServer } = await import('./mock-server-command.js');
      return runMockServer(command, io);
    }
    case 'send-webhook': {
      const { runSendWebhook } = await import('./send-webhook-command.js');
      return runSendWebhook(command, io);
    }
    case 'ewaybill-create': {
      const { runEwaybillCreate } = await import('./ewaybill-command.js');
      const stop = stopSignal();
      try {
        return await runEwaybillCreate(command, io, {
          env: process.env,
          progressStream: process.stderr,
          stop: stop.signal,
        });
      } finally {
        stop.dispose();
      }
    }
  }
}

const io: CliOutput = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
    // Nothing should be left running; if something is, do not hang the terminal.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (error: unknown) => {
    process.stderr.write(`invoicing-service-sdk: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
