/** What the SDK writes in place of a secret. */
export const REDACTED = '[redacted]';

/** Deeper than this, a parsed value is replaced whole: answers of the service are flat, and recursion must stay bounded. */
const MAX_DEPTH = 64;

/**
 * Replaces every copy of one secret (an API key) in texts and in parsed values, in any of the forms a web page, a URL
 * or a JSON text writes it in (see {@link echoPattern}). It works on values after parsing too, so an echo in an object
 * key is caught as well as one in a string.
 */
export interface Redactor {
  /** `text` with every copy of the secret replaced. */
  text(text: string): string;
  /** A copy of a parsed JSON value with every copy of the secret replaced, in keys and strings. */
  value(value: unknown): unknown;
  /**
   * Whether the secret is long enough that a copy of it in a text can only be an echo of it (16 characters or more;
   * the service's keys are JWTs). A successful answer is redacted only then: with a key of one letter, redacting
   * every copy would rewrite a bill's message and headers.
   */
  readonly distinctive: boolean;
}

/** The shortest secret whose copies are redacted in successful answers too. */
export const DISTINCTIVE_LENGTH = 16;

export function redactor(secret: string): Redactor {
  return new SecretRedactor(secret);
}

/**
 * A {@link Redactor} as one small object: a client holds one per key, and a platform with one client per company holds
 * thousands (issue 29, item 8), so its methods live on the prototype and the pattern is built on first use. `text` is
 * handed around as a plain function (`scrub: redact.text`), so it is bound, once, when first read.
 */
class SecretRedactor implements Redactor {
  readonly #secret: string;
  #echo: RegExp | undefined;
  #text: ((text: string) => string) | undefined;
  readonly distinctive: boolean;

  constructor(secret: string) {
    this.#secret = secret;
    this.distinctive = secret.length >= DISTINCTIVE_LENGTH;
  }

  get text(): (text: string) => string {
    this.#text ??= (value) => this.#replace(value);
    return this.#text;
  }

  value(value: unknown): unknown {
    return this.#walk(value, 0);
  }

  // Only a text with the secret as it is, or with a character that starts an encoded form, can hold a copy: the
  // pattern is built (once) and run only then. Most texts (a successful answer's headers) need neither.
  #replace(value: string): string {
    const secret = this.#secret;
    if (secret === '' || !(value.includes(secret) || ENCODED_START.test(value))) return value;
    this.#echo ??= echoPattern(secret);
    return value.replace(this.#echo, REDACTED);
  }

  #walk(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.#replace(value);
    if (typeof value !== 'object' || value === null) return value;
    if (depth >= MAX_DEPTH) return `${REDACTED} (nested deeper than ${MAX_DEPTH} levels)`;
    if (Array.isArray(value)) return value.map((item) => this.#walk(item, depth + 1));
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty: a key named __proto__ in an answer stays a plain key.
      Object.defineProperty(copy, this.#replace(key), {
        value: this.#walk(item, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
}

/** The characters that start a form of a character other than itself: `%`, `+`, `\` and `&`. */
const ENCODED_START = /[%+\\&]/;

/** A hex number matched in either case: `2f` as `2[fF]`. */
function anyCase(hex: string): string {
  return hex.replace(/[a-f]/g, (letter) => `[${letter}${letter.toUpperCase()}]`);
}

const hex2 = (n: number): string => anyCase(n.toString(16).padStart(2, '0'));
const ESCAPED = /[.*+?^${}()|[\]\\/-]/g;
/** The character references HTML escapers write for the five characters they escape (`&amp;`, `&#39;`, ...). */
const HTML_NAMED: Readonly<Record<string, string>> = { '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' };
/** The JSON escapes of their own: `\/` (PHP's json_encode), `\"` and `\\`. */
const JSON_SHORT: Readonly<Record<string, string>> = { '/': '\\\\/', '"': '\\\\"', '\\': '\\\\\\\\' };

/**
 * The forms one character of a secret is written in by what echoes it: as it is; percent-encoded (`encodeURIComponent`,
 * `encodeURI`, a form's `URLSearchParams`, with either case of hex digits, and encoded twice as `%252F`), with `+` for a
 * space (form encoding); JSON-escaped (`\uXXXX`, `\/`); as an HTML character reference (`&#47;`, `&#x2F;`, `&amp;`).
 * Each character of an echo may take any of them, so a mix (`encodeURI`'s, which keeps `/` and encodes `+`) is caught.
 * Base64 and other encodings that rewrite every character depending on its neighbours are not (README, Errors).
 */
function characterForms(char: string): string {
  const forms = [char.replace(ESCAPED, '\\$&')];
  const bytes = [...new TextEncoder().encode(char)];
  forms.push(bytes.map((byte) => `%(?:25)?${hex2(byte)}`).join(''));
  if (char === ' ') forms.push('\\+');
  const json = JSON_SHORT[char];
  if (json) forms.push(json);
  let units = '';
  for (let i = 0; i < char.length; i++) units += `\\\\u${anyCase(char.charCodeAt(i).toString(16).padStart(4, '0'))}`;
  forms.push(units);
  const point = char.codePointAt(0) as number;
  forms.push(`&#0*${point};`, `&#[xX]0*${anyCase(point.toString(16))};`);
  const named = HTML_NAMED[char];
  if (named) forms.push(`&${named};`);
  return `(?:${forms.join('|')})`;
}

/** Every copy of `secret` in a text, in any of the forms of {@link characterForms}, character by character. */
export function echoPattern(secret: string): RegExp {
  let source = '';
  for (const char of secret) source += characterForms(char);
  return new RegExp(source, 'g');
}
