// The receiver's answer is printed by `send-webhook`; a receiver that echoes the secret back (plainly, JSON-escaped
// with \uXXXX or \/, URL-encoded, or as HTML character references) must never make the CLI print it, nor a prefix of
// it at a cut.
import { echoPattern } from '../internal/redact.js';

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
