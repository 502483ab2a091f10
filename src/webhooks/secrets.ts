/**
 * The webhook secret from the dashboard's API integration section, or several of them while it is rotated:
 * a delivery signed with any of them is accepted.
 *
 * @example
 * const secret: WebhookSecret = [process.env.WEBHOOK_SECRET!, process.env.WEBHOOK_SECRET_PREVIOUS!];
 */
export type WebhookSecret = string | readonly string[];

const EXPECTED =
  "the webhook secret from the dashboard's API integration section, as a non-empty string " +
  '(or a non-empty array of such strings while the secret is rotated)';

/** What a wrong secret value is, in words that never show the value itself. */
function describe(value: unknown): string {
  if (value === '') return 'an empty string';
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : 'a nested array';
  return typeof value;
}

/**
 * The secrets to try, checked: a string becomes a list of one; an array is copied and frozen, so a later change
 * to the caller's array has no effect.
 * @throws {TypeError} When the value is not a non-empty string or a non-empty array of them, naming the option
 * (and the position in the array) but never showing a secret.
 */
export function toSecretList(secret: unknown, name = 'secret'): readonly string[] {
  if (typeof secret === 'string' && secret !== '') return Object.freeze([secret]);
  if (!Array.isArray(secret) || secret.length === 0) {
    throw new TypeError(`${name} must be ${EXPECTED}; got ${describe(secret)}.`);
  }
  const list: string[] = [];
  for (let i = 0; i < secret.length; i++) {
    const item: unknown = secret[i];
    if (typeof item !== 'string' || item === '') {
      throw new TypeError(`${name}[${i}] must be a non-empty webhook secret string; got ${describe(item)}.`);
    }
    list.push(item);
  }
  return Object.freeze(list);
}
