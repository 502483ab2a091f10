const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const encodeJson = (value: unknown) => base64url(new TextEncoder().encode(JSON.stringify(value)));

/**
 * A fresh random API key shaped like the spec's keys (a JWT: `header.payload.signature`, base64url).
 * The payload names the key's public id and company; the signature part is 32 random bytes, so keys never repeat.
 */
export function generateApiKey(keyId: string, companyId: string): string {
  const header = encodeJson({ alg: 'HS256', typ: 'JWT' });
  const payload = encodeJson({ kid: keyId, company: companyId, mock: true });
  return `${header}.${payload}.${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
}

/** Whether `key` is shaped like the service's keys (a JWT: `header.payload.signature`, base64url). */
export function isKeyShaped(key: unknown): key is string {
  return typeof key === 'string' && JWT_SHAPE.test(key);
}

/** The outcome of reading an `Authorization` header. */
export type BearerReading =
  | { readonly kind: 'missing' }
  | { readonly kind: 'malformed'; readonly why: string }
  | { readonly kind: 'token'; readonly token: string };

/** Reads `Authorization: Bearer <JWT-shaped key>`; the scheme is case-insensitive (RFC 9110). */
export function readBearer(header: string | null): BearerReading {
  if (header === null || header.trim() === '') return { kind: 'missing' };
  const match = /^(\S+)\s+(\S+)$/.exec(header.trim());
  if (match?.[1]?.toLowerCase() !== 'bearer') {
    return { kind: 'malformed', why: "The Authorization header must be 'Bearer <API key>'" };
  }
  const token = match?.[2] ?? '';
  if (!JWT_SHAPE.test(token)) {
    return {
      kind: 'malformed',
      why: 'The API key is not shaped like the service keys (a JWT: header.payload.signature)',
    };
  }
  return { kind: 'token', token };
}

/** Header value for the request log: the scheme is kept, the credential never is. */
export function redactAuthorization(value: string): string {
  const scheme = /^\s*(\S+)\s+\S/.exec(value)?.[1];
  return scheme ? `${scheme} [redacted]` : '[redacted]';
}
