import { parseArgs } from 'node:util';
import { checkAllowedHost } from '../testing/dashboard-host.js';

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
      /** A fixed key for the mock, kept across restarts. */
      readonly apiKey?: string | undefined;
      /** Where to post a signed document event for each generated e-way bill. */
      readonly webhookUrl?: string | undefined;
      /** The secret of those events; the command falls back to WEBHOOK_SECRET. */
      readonly webhookSecret?: string | undefined;
      /** More `Host` names the dashboard answers to (`--allowed-host`, repeatable). */
      readonly allowedHosts: readonly string[];
    }
  | {
      readonly kind: 'send-webhook';
      readonly url: string;
      /** The webhook secret; the command falls back to WEBHOOK_SECRET. */
      readonly secret: string | undefined;
      readonly type: 'document' | 'inventory' | undefined;
      readonly dataFile: string | undefined;
    }
  | {
      readonly kind: 'ewaybill-create';
      readonly input: string;
      readonly output: string;
      readonly progress: 'auto' | 'bar' | 'lines' | 'none';
      readonly preflight: 'off' | 'warn' | 'strict';
      /** Milliseconds each request may take (`--timeout`, given in seconds); it also sets how long a later run waits. */
      readonly timeoutMs: number;
    }
  | { readonly kind: 'usage-error'; readonly message: string };

/** The default of `ewaybill create --timeout`, in seconds: the client's own default (30 s). */
export const DEFAULT_CLI_TIMEOUT_S = 30;
/** The longest `ewaybill create --timeout`, in seconds (10 minutes). */
export const MAX_CLI_TIMEOUT_S = 600;

/** The default port of `mock-server`. */
export const DEFAULT_PORT = 4010;

/** How many demo documents `mock-server` creates by default. */
export const DEFAULT_DOCUMENTS = 5;

/** The most demo documents `mock-server` creates (their ids have four digits). */
export const MAX_DOCUMENTS = 1000;

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  // mock-server
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  'no-rate-limit': { type: 'boolean' },
  disconnected: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  documents: { type: 'string' },
  'api-key': { type: 'string' },
  'webhook-url': { type: 'string' },
  'webhook-secret': { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  // send-webhook
  url: { type: 'string' },
  secret: { type: 'string' },
  type: { type: 'string' },
  data: { type: 'string' },
  // ewaybill create
  input: { type: 'string', short: 'i' },
  output: { type: 'string', short: 'o' },
  progress: { type: 'string' },
  preflight: { type: 'string' },
  timeout: { type: 'string' },
} as const;

/** Which options each command takes (help and version are taken everywhere). */
const COMMAND_OPTIONS: Record<string, readonly (keyof typeof OPTIONS)[]> = {
  'mock-server': [
    'port',
    'host',
    'no-rate-limit',
    'disconnected',
    'quiet',
    'documents',
    'api-key',
    'webhook-url',
    'webhook-secret',
    'allowed-host',
  ],
  'send-webhook': ['url', 'secret', 'type', 'data'],
  'ewaybill create': ['input', 'output', 'progress', 'preflight', 'timeout'],
};

type Values = ReturnType<typeof parse>['values'];
const usage = (message: string): CliCommand => ({ kind: 'usage-error', message });

/** Reads the command line (without `node` and the script). Never throws: a mistake is a `usage-error`. */
export function parseCommandLine(argv: readonly string[]): CliCommand {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    return usage(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help || positionals[0] === 'help') return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  const [first, ...rest] = positionals;
  if (first === undefined) return usage('No command given.');
  const withSub = first === 'ewaybill';
  const name = withSub ? `ewaybill ${rest[0] ?? ''}`.trim() : first;
  const extra = withSub ? rest.slice(1) : rest;
  const allowed = COMMAND_OPTIONS[name];
  if (!allowed)
    return usage(
      withSub ? `Unknown command '${name}' (did you mean 'ewaybill create'?).` : `Unknown command '${first}'.`,
    );
  if (extra.length > 0) return usage(`Unexpected argument '${extra[0]}'.`);
  const foreign = Object.keys(values).find((k) => !['help', 'version', ...allowed].includes(k));
  if (foreign) return usage(`The option '--${foreign}' does not apply to ${name}.`);
  if (name === 'mock-server') return mockServer(values);
  if (name === 'send-webhook') return sendWebhook(values);
  return ewaybillCreate(values);
}

function mockServer(values: Values): CliCommand {
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!/^\d+$/.test(values.port ?? String(DEFAULT_PORT)) || port > 65_535) {
    return usage(`--port must be an integer from 0 to 65535; got '${values.port}'.`);
  }
  const documents = values.documents === undefined ? DEFAULT_DOCUMENTS : Number(values.documents);
  if (!/^\d+$/.test(values.documents ?? String(DEFAULT_DOCUMENTS)) || documents < 1 || documents > MAX_DOCUMENTS) {
    return usage(`--documents must be an integer from 1 to ${MAX_DOCUMENTS}; got '${values.documents}'.`);
  }
  const apiKey = values['api-key'];
  if (apiKey !== undefined && !JWT_SHAPE.test(apiKey)) {
    return usage(
      "--api-key must be shaped like the service's keys (a JWT: three base64url parts joined by dots), for example the key an earlier run printed.",
    );
  }
  const webhookUrl = values['webhook-url'];
  if (webhookUrl !== undefined && !isHttpUrl(webhookUrl)) {
    return usage(`--webhook-url must be an absolute http(s) URL; got '${webhookUrl}'.`);
  }
  if (values['webhook-secret'] !== undefined && webhookUrl === undefined) {
    return usage('--webhook-secret needs --webhook-url.');
  }
  let allowedHosts: string[];
  try {
    allowedHosts = (values['allowed-host'] ?? []).map((host) => checkAllowedHost(host, '--allowed-host'));
  } catch (error) {
    return usage(`${(error as Error).message}.`);
  }
  return {
    kind: 'mock-server',
    port,
    host: values.host ?? '127.0.0.1',
    rateLimit: !values['no-rate-limit'],
    portalConnected: !values.disconnected,
    quiet: values.quiet ?? false,
    documents,
    apiKey,
    webhookUrl,
    webhookSecret: values['webhook-secret'],
    allowedHosts,
  };
}

function sendWebhook(values: Values): CliCommand {
  if (values.url === undefined) return usage('send-webhook needs --url <receiver URL>.');
  if (!isHttpUrl(values.url)) return usage(`--url must be an absolute http(s) URL; got '${values.url}'.`);
  const type = values.type;
  if (type !== undefined && type !== 'document' && type !== 'inventory') {
    return usage(`--type must be 'document' or 'inventory'; got '${type}'.`);
  }
  if (type === undefined && values.data === undefined) {
    return usage('send-webhook needs --type document|inventory (or --data with a whole event).');
  }
  return { kind: 'send-webhook', url: values.url, secret: values.secret, type, dataFile: values.data };
}

function ewaybillCreate(values: Values): CliCommand {
  if (values.input === undefined || values.output === undefined) {
    return usage('ewaybill create needs --input <bills.jsonl> and --output <results.jsonl>.');
  }
  const progress = values.progress ?? 'auto';
  if (!['auto', 'bar', 'lines', 'none'].includes(progress)) {
    return usage(`--progress must be auto, bar, lines or none; got '${progress}'.`);
  }
  const preflight = values.preflight ?? 'warn';
  if (!['off', 'warn', 'strict'].includes(preflight)) {
    return usage(`--preflight must be off, warn or strict; got '${preflight}'.`);
  }
  const timeout = values.timeout ?? String(DEFAULT_CLI_TIMEOUT_S);
  const seconds = /^\d+(\.\d+)?$/.test(timeout) ? Number(timeout) : Number.NaN;
  if (!(seconds >= 1 && seconds <= MAX_CLI_TIMEOUT_S)) {
    return usage(`--timeout must be a number of seconds from 1 to ${MAX_CLI_TIMEOUT_S}; got '${timeout}'.`);
  }
  return {
    kind: 'ewaybill-create',
    input: values.input,
    output: values.output,
    progress: progress as 'auto',
    preflight: preflight as 'warn',
    timeoutMs: Math.round(seconds * 1000),
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: OPTIONS });
}
