import { readFile } from 'node:fs/promises';
import { buildDocumentEvent, buildInventoryEvent } from '../testing/event-fixtures.js';
import { signWebhook } from '../webhooks/sign.js';
import type { CliCommand } from './args.js';
import type { CliOutput } from './output.js';
import { webhookSecretFrom, withoutSecret } from './secret-echo.js';

/** Options of {@link runSendWebhook}: what the command line asked for. */
export type SendWebhookOptions = Omit<Extract<CliCommand, { kind: 'send-webhook' }>, 'kind'>;

/** The spec's answer time for receivers. */
const TIMEOUT_MS = 10_000;
/** The most of the receiver's answer that is printed. */
const MAX_SHOWN = 4000;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The exact body to send: the sample event of `type`, with the `data` fields of the file merged in; or, when the file
 * holds a whole event (`event_type` and `data`), the file's bytes as they are (so a receiver is tested on a raw body).
 */
async function eventBody(options: SendWebhookOptions): Promise<{ body: string; type: string } | { error: string }> {
  let fileText: string | undefined;
  let parsed: unknown;
  if (options.dataFile !== undefined) {
    try {
      fileText = await readFile(options.dataFile, 'utf8');
    } catch (error) {
      return { error: `Could not read --data ${options.dataFile}: ${(error as Error).message}` };
    }
    try {
      parsed = JSON.parse(fileText);
    } catch (error) {
      return { error: `--data ${options.dataFile} is not valid JSON: ${(error as Error).message}` };
    }
    if (!isObject(parsed)) return { error: `--data ${options.dataFile} must hold a JSON object` };
  }
  if (isObject(parsed) && typeof parsed.event_type === 'string' && isObject(parsed.data)) {
    if (options.type !== undefined && options.type !== parsed.event_type) {
      return { error: `--type is ${options.type} but the event in --data has event_type '${parsed.event_type}'` };
    }
    return { body: fileText as string, type: parsed.event_type };
  }
  const data = (parsed ?? {}) as Record<string, never>;
  if (options.type === undefined) return { error: '--data holds no whole event (event_type and data): pass --type' };
  const event = options.type === 'document' ? buildDocumentEvent({ data }) : buildInventoryEvent({ data });
  return { body: JSON.stringify(event), type: options.type };
}

/**
 * Signs a sample event (or the event in `--data`) with the webhook secret as the service does, POSTs it to the receiver,
 * and prints the receiver's status and body. Resolves with 0 for a 2xx answer, 1 otherwise, 2 for a usage problem.
 * The secret is never printed, not even when the receiver echoes it back.
 * @example await runSendWebhook({ url: 'http://localhost:3000/webhooks', secret: 's', type: 'document', dataFile: undefined }, io)
 */
export async function runSendWebhook(
  options: SendWebhookOptions,
  io: CliOutput,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  const secret = webhookSecretFrom(options.secret, '--secret', env, io);
  if (secret === undefined) {
    io.err(
      'send-webhook needs the webhook secret: pass --secret, or set WEBHOOK_SECRET (which keeps it out of shell history).',
    );
    return 2;
  }
  const built = await eventBody(options);
  if ('error' in built) {
    io.err(built.error);
    return 2;
  }
  // The whole text is checked before any cut, in every form it could carry the secret: never a prefix of it.
  const redact = (text: string) => withoutSecret(text, secret);
  const target = new URL(options.url);
  const where = `${target.origin}${target.pathname}`;
  const eventId = (JSON.parse(built.body) as { event_id?: unknown }).event_id;
  io.out(
    `POST ${where}: ${built.type} event ${String(eventId)} (${Buffer.byteLength(built.body)} bytes, X-Signature set)`,
  );
  let response: Response;
  try {
    response = await fetch(options.url, {
      method: 'POST',
      body: built.body,
      headers: { 'content-type': 'application/json', 'x-signature': signWebhook(built.body, secret) },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = timedOut
      ? `no answer within ${TIMEOUT_MS / 1000} s (the service waits 10 s at most)`
      : (cause?.code ?? cause?.message ?? (error as Error).message);
    io.err(`Could not deliver to ${where}: ${redact(String(why))}`);
    return 1;
  }
  const text = redact(await response.text().catch(() => ''));
  const shown = text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length} characters)` : text;
  io.out(`Receiver answered ${response.status} ${response.statusText}`.trimEnd());
  if (shown !== '') io.out(shown);
  if (!response.ok) io.err('The receiver did not accept the event (a 2xx is expected; the service wants 200).');
  return response.ok ? 0 : 1;
}
