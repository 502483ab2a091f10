import { createHash } from 'node:crypto';

/**
 * The SHA-256 (hex) of a request body, as journals record it: two bodies with one hash are the same request.
 * @example journalBodyHash(JSON.stringify(model)) // '9f86d0…'
 */
export function journalBodyHash(body: string): string {
  return createHash('sha256').update(body, 'utf8').digest('hex');
}

/**
 * A short hash of an API key (the first 12 hex digits of its SHA-256), as journals and the CLI's result lines record
 * it: it tells two keys apart without holding the key.
 * @example journalKeyHash(process.env.SERVICE_API_KEY ?? '') // 'a1b2c3d4e5f6'
 */
export function journalKeyHash(apiKey: string): string {
  return createHash('sha256').update(apiKey.trim(), 'utf8').digest('hex').slice(0, 12);
}
