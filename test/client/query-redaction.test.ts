// Query values never reach an error or a hook event: partners log both (and send errors to trackers), and a query can
// carry a GSTIN, a phone number or a session token.
import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { ServiceClient } from 'invoicing-service-sdk';
import { describe, expect, it } from 'vitest';

const SECRET = 'sess_SECRET_TOKEN_123';

/** A loopback port with nothing listening on it: connecting is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('query values in errors and hooks', () => {
  it('a failed request() names the query parameters, never their values, in its message, request and hooks', async () => {
    const events: unknown[] = [];
    const client = new ServiceClient({
      apiKey: 'k_query_redaction_0123456789',
      baseUrl: `http://127.0.0.1:${await closedPort()}/api/partner`,
      maxRetries: 0,
      rateLimiter: { acquire: async () => undefined },
      hooks: { onRequest: (event) => void events.push(event), onResponse: (event) => void events.push(event) },
    });
    const error = await client
      .request('GET', '/v2/doc', { query: { gstin: '27AAAPL1234C1Z5', token: SECRET } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONNECTION_ERROR', mayHaveSucceeded: false });
    const seen = [String(error), inspect(error, { depth: 5 }), JSON.stringify(error), JSON.stringify(events)].join(
      '\n',
    );
    expect(seen).not.toContain(SECRET);
    expect(seen).not.toContain('27AAAPL1234C1Z5');
    expect((error as { request: { url: string } }).request.url).toMatch(/\/v2\/doc\?gstin=REDACTED&token=REDACTED$/);
    expect(events.length).toBeGreaterThan(0);
  });
});
