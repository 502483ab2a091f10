#!/usr/bin/env node
// The `invoicing-service-sdk` command. It imports only what it runs: never msw, never the SDK's client.

import { SDK_VERSION } from '../client/runtime.js';
import { parseCommandLine } from './args.js';
import { type CliOutput, runMockServer } from './mock-server-command.js';
import { USAGE } from './usage.js';

/**
 * Runs the command line and resolves with the exit code: 0 done, 1 failure, 2 usage error.
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
      io.err(`${command.message}\n\n${USAGE}`);
      return 2;
    case 'mock-server':
      return runMockServer(command, io);
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
