import { parseArgs } from 'node:util';

/** What the command line asked for. */
export type CliCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | {
      readonly kind: 'mock-server';
      readonly port: number;
      readonly host: string;
      readonly rateLimit: boolean;
      readonly portalConnected: boolean;
      readonly quiet: boolean;
      readonly documents: number;
    }
  | { readonly kind: 'usage-error'; readonly message: string };

/** The default port of `mock-server`. */
export const DEFAULT_PORT = 4010;

/** How many demo documents `mock-server` creates by default. */
export const DEFAULT_DOCUMENTS = 5;

/** The most demo documents `mock-server` creates (their ids have four digits). */
export const MAX_DOCUMENTS = 1000;

/** Reads the command line (without `node` and the script). Never throws: a mistake is a `usage-error`. */
export function parseCommandLine(argv: readonly string[]): CliCommand {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    return { kind: 'usage-error', message: error instanceof Error ? error.message : String(error) };
  }
  const { values, positionals } = parsed;
  if (values.help || positionals[0] === 'help') return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  const [command, ...extra] = positionals;
  if (command === undefined) return { kind: 'usage-error', message: 'No command given.' };
  if (command !== 'mock-server') return { kind: 'usage-error', message: `Unknown command '${command}'.` };
  if (extra.length > 0) return { kind: 'usage-error', message: `Unexpected argument '${extra[0]}'.` };
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!/^\d+$/.test(values.port ?? String(DEFAULT_PORT)) || port > 65_535) {
    return { kind: 'usage-error', message: `--port must be an integer from 0 to 65535; got '${values.port}'.` };
  }
  const documents = values.documents === undefined ? DEFAULT_DOCUMENTS : Number(values.documents);
  if (!/^\d+$/.test(values.documents ?? String(DEFAULT_DOCUMENTS)) || documents < 1 || documents > MAX_DOCUMENTS) {
    return {
      kind: 'usage-error',
      message: `--documents must be an integer from 1 to ${MAX_DOCUMENTS}; got '${values.documents}'.`,
    };
  }
  return {
    kind: 'mock-server',
    port,
    host: values.host ?? '127.0.0.1',
    rateLimit: !values['no-rate-limit'],
    portalConnected: !values.disconnected,
    quiet: values.quiet ?? false,
    documents,
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
      port: { type: 'string', short: 'p' },
      host: { type: 'string' },
      'no-rate-limit': { type: 'boolean' },
      disconnected: { type: 'boolean' },
      quiet: { type: 'boolean', short: 'q' },
      documents: { type: 'string' },
    },
  });
}
