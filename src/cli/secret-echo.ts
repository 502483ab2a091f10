// The webhook secret of `send-webhook` and `mock-server`: where it is read from, and what is never printed. The
// receiver's answer is printed by `send-webhook`; a receiver that echoes the secret back (plainly, JSON-escaped
// with \uXXXX or \/, URL-encoded, or as HTML character references) must never make the CLI print it, nor a prefix of
// it at a cut.
import { echoPattern } from '../internal/redact.js';
import type { CliOutput } from './output.js';

/**
 * The webhook secret: the value of the command-line option `flag` when given (with a warning on stderr: it shows in
 * `ps` and the shell history), else `WEBHOOK_SECRET`; `undefined` when neither holds a non-empty one.
 */
export function webhookSecretFrom(
  given: string | undefined,
  flag: string,
  env: Readonly<Record<string, string | undefined>>,
  io: CliOutput,
): string | undefined {
  if (given !== undefined) {
    io.err(
      `Warning: ${flag} puts the secret in \`ps\` and the shell history; set WEBHOOK_SECRET in the environment instead.`,
    );
  }
  const secret = given ?? env.WEBHOOK_SECRET;
  return secret === '' ? undefined : secret;
}

/** `text` with its JSON escapes undone, so an echo written with an escaped `%` or `&` is seen in its other forms too. */
function jsonUnescaped(text: string): string {
  return text.replace(/\\u([0-9a-fA-F]{4})|\\(["\\/bfnrt])/g, (_whole, hex: string | undefined, ch) => {
    if (hex) return String.fromCharCode(Number.parseInt(hex, 16));
    return ({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' } as Record<string, string>)[ch as string] ?? ch;
  });
}

/** The text to print: the whole text, or a notice instead of it when it carries the secret in any form. */
export function withoutSecret(text: string, secret: string): string {
  if (secret === '') return text;
  // The same forms as the API key's redaction (src/internal/redact.ts), each character in any of them; a text that is
  // not valid URL-encoding (a lone `%`) is still searched, which decoding it whole could not do.
  const echo = echoPattern(secret);
  if ([text, jsonUnescaped(text)].some((form) => form.search(echo) >= 0)) {
    return "[the receiver's answer is not shown: it holds the webhook secret (plainly, escaped or encoded)]";
  }
  return text;
}
