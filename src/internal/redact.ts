/** What the SDK writes in place of a secret. */
export const REDACTED = '[redacted]';

/** Deeper than this, a parsed value is replaced whole: answers of the service are flat, and recursion must stay bounded. */
const MAX_DEPTH = 64;

/**
 * Replaces every copy of one secret (an API key) in texts and in parsed values. It works on values after parsing, so
 * an echo written with JSON escapes (`\/`, `\uXXXX`) is caught too, and in object keys as well as strings.
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
  const text = (value: string): string => (value.includes(secret) ? value.replaceAll(secret, REDACTED) : value);
  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return text(value);
    if (typeof value !== 'object' || value === null) return value;
    if (depth >= MAX_DEPTH) return `${REDACTED} (nested deeper than ${MAX_DEPTH} levels)`;
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty: a key named __proto__ in an answer stays a plain key.
      Object.defineProperty(copy, text(key), {
        value: walk(item, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  };
  return { text, value: (value) => walk(value, 0), distinctive: secret.length >= DISTINCTIVE_LENGTH };
}
