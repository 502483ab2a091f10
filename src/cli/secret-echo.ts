// The receiver's answer is printed by `send-webhook`; a receiver that echoes the secret back (plainly, JSON-escaped
// with \uXXXX or \/, or URL-encoded) must never make the CLI print it, nor a prefix of it at a cut.

/** The forms a text can carry the secret in, decoded: as sent, JSON-unescaped, URL-decoded, and both. */
function decodedForms(text: string): string[] {
  const forms = [text];
  const unescaped = text.replace(/\\u([0-9a-fA-F]{4})|\\(["\\/bfnrt])/g, (whole, hex: string | undefined, ch) => {
    if (hex) return String.fromCharCode(Number.parseInt(hex, 16));
    return ({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' } as Record<string, string>)[ch as string] ?? ch;
  });
  forms.push(unescaped);
  for (const form of [text, unescaped]) {
    try {
      forms.push(decodeURIComponent(form.replace(/\+/g, ' ')));
    } catch {
      // Not URL-encoded text: the forms above cover it.
    }
  }
  return forms;
}

/** The text to print: the whole text, or a notice instead of it when it carries the secret in any form. */
export function withoutSecret(text: string, secret: string): string {
  if (secret === '') return text;
  if (decodedForms(text).some((form) => form.includes(secret))) {
    return "[the receiver's answer is not shown: it holds the webhook secret (plainly, escaped or encoded)]";
  }
  return text;
}
