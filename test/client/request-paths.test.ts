// Issue 28, item 8: what `client.request` refuses before anything is queued. A GET with a body (it spent three of the
// key's slots on a local fetch error), and paths that a normalising back-end (Tomcat, Spring, IIS) would read as
// leaving the base path: `..;` segments, double-encoded dots, overlong UTF-8 dots, full-width dots. Against a real
// node:http server on loopback that records what arrived, with a limiter that counts the slots asked for.
import fc from 'fast-check';
import { ServiceClient } from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAnswerServer } from '../helpers/answer-server.js';
import { freshKey } from '../helpers/model.js';

let server: Awaited<ReturnType<typeof startAnswerServer>>;
let arrivals: Awaited<ReturnType<typeof startAnswerServer>>['arrivals'];
let slots: number;

beforeEach(async () => {
  server = await startAnswerServer();
  arrivals = server.arrivals;
  slots = 0;
});
afterEach(() => server.close());

const clientOf = () =>
  new ServiceClient({
    apiKey: freshKey('paths'),
    baseUrl: server.baseUrl,
    rateLimiter: {
      acquire: async () => {
        slots++;
      },
    },
    preflight: 'off',
  });

describe('client.request: a GET with a body', () => {
  it('is a TypeError before anything is queued (it used three slots and failed as CONNECTION_ERROR)', async () => {
    const error = await clientOf()
      .request('GET', '/v2/doc', { body: { id: 1 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(
      'request: a GET cannot carry a body (fetch refuses to send one); pass the values as options.query, or use POST',
    );
    expect(slots).toBe(0);
    expect(arrivals).toEqual([]);
  });

  it('a body of null is a body too; no body (undefined) is none, and DELETE may carry one', async () => {
    const client = clientOf();
    await expect(client.request('GET', '/v2/doc', { body: null })).rejects.toThrow('a GET cannot carry a body');
    await client.request('GET', '/v2/doc', { body: undefined });
    await client.request('DELETE', '/v2/doc/1', { body: { reason: 'dup' } });
    expect(arrivals.map((a) => a.method)).toEqual(['GET', 'DELETE']);
    expect(slots).toBe(2);
  });

  it('HEAD is not a method request() sends: a TypeError, nothing queued', async () => {
    await expect(clientOf().request('HEAD' as 'GET', '/v2/doc')).rejects.toThrow(
      'request: method must be one of GET, POST, PUT, PATCH, DELETE',
    );
    expect(slots).toBe(0);
  });
});

describe('client.request: paths a normalising back-end would read as leaving the base path', () => {
  it.each([
    ['/v2/doc/..;/admin', "a '..;' segment"],
    ['/v2/doc/.;/admin', "a '.;' segment"],
    ['/v2/doc/..;jsessionid=1/admin', 'a path parameter after ..'],
    ['/v2/doc/%2e%2e;/admin', 'encoded dots and ;'],
    ['/v2/doc/..%3b/admin', 'dots and an encoded ;'],
    ['/v2/doc/%252e%252e/admin', 'double-encoded dots'],
    ['/v2/doc/%25252e%25252e/admin', 'triple-encoded dots'],
    ['/v2/doc/%252e%252e%253b/admin', 'double-encoded dots and ;'],
    ['/v2/doc/%C0%AE%C0%AE/admin', 'overlong UTF-8 dots (2 bytes)'],
    ['/v2/doc/%E0%80%AE%E0%80%AE/admin', 'overlong UTF-8 dots (3 bytes)'],
    ['/v2/doc/%c0%ae./admin', 'an overlong dot beside a plain one'],
    ['/v2/doc/%EF%BC%8E%EF%BC%8E/admin', 'full-width dots (NFKC makes them ..)'],
    ['/v2/doc/\uFF0E\uFF0E/admin', 'full-width dots as text'],
    ['/v2/doc/%252f..%252fadmin', 'a double-encoded slash'],
    ['/v2/doc/a%255cb', 'a double-encoded backslash'],
    ['/v2/doc/%EF%BC%8Fadmin', 'a full-width slash'],
    ['/v2/doc/%C0%AFadmin', 'an overlong slash'],
    ['/v2/doc/%00/admin', 'an encoded NUL'],
    ['/v2/doc/%2500', 'a double-encoded NUL'],
  ])('refuses %s (%s) with a TypeError naming the path problem; nothing is queued', async (path) => {
    const error = await clientOf()
      .request('GET', path)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/^request: path .* (?:must not|holds)/);
    expect(slots).toBe(0);
    expect(arrivals).toEqual([]);
  });

  it('still sends ordinary paths: dots inside names, ; after a name, encoded spaces and non-Latin ids', async () => {
    const client = clientOf();
    for (const path of [
      '/v2/doc/a..b',
      '/v2/doc/file.v2.json',
      '/v2/doc/x;v=1',
      '/v2/doc/a%20b',
      '/v2/doc/%E0%A4%95',
    ]) {
      await client.request('GET', path);
    }
    expect(arrivals.map((a) => a.url)).toEqual([
      '/api/partner/v2/doc/a..b',
      '/api/partner/v2/doc/file.v2.json',
      '/api/partner/v2/doc/x;v=1',
      '/api/partner/v2/doc/a%20b',
      '/api/partner/v2/doc/%E0%A4%95',
    ]);
  });
});

/**
 * What a lenient back-end makes of a path: percent-decoding repeated until nothing changes (overlong UTF-8 read as
 * its ASCII meaning), NFKC, `\` as `/`, `;params` dropped from each segment, then dot segments resolved.
 */
function lenientPath(raw: string): string {
  let text = raw;
  for (let round = 0; round < 8; round++) {
    const next = text.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    if (next === text) break;
    text = next;
  }
  // Overlong two- and three-byte forms of ASCII, as a lenient UTF-8 decoder reads them.
  text = text
    .replace(/[\xC0\xC1]([\x80-\xBF])/g, (pair, low: string) =>
      String.fromCharCode(((pair.charCodeAt(0) & 0x1f) << 6) | (low.charCodeAt(0) & 0x3f)),
    )
    .replace(/\xE0[\x80-\x9F][\x80-\xBF]/g, (three) =>
      String.fromCharCode(((three.charCodeAt(1) & 0x3f) << 6) | (three.charCodeAt(2) & 0x3f)),
    );
  try {
    text = Buffer.from(text, 'latin1').toString('utf8');
  } catch {}
  text = text.normalize('NFKC').replaceAll('\\', '/');
  const out: string[] = [];
  for (const segment of text.split('/').map((s) => s.split(';')[0] ?? '')) {
    if (segment === '..') out.pop();
    else if (segment !== '.') out.push(segment);
  }
  return out.join('/');
}

describe('client.request: property, whatever is sent stays under the base path for a lenient back-end', () => {
  const piece = fc.constantFrom(
    '.',
    '..',
    '%2e',
    '%252e',
    '%25252e',
    '%c0%ae',
    '%e0%80%ae',
    '%ef%bc%8e',
    '\uFF0E',
    ';',
    '%3b',
    '%253b',
    '%2f',
    '%252f',
    '%5c',
    '%255c',
    '%c0%af',
    '%ef%bc%8f',
    'a',
    'admin',
    '-',
    '%20',
  );
  const segment = fc.array(piece, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(''));
  const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => `/v2/doc/${segments.join('/')}`);

  it('either refused with a TypeError and nothing sent, or it arrives where a lenient server keeps it under /api/partner/v2/doc', async () => {
    const client = clientOf();
    await fc.assert(
      fc.asyncProperty(path, async (candidate) => {
        const before = arrivals.length;
        const outcome = await client.request('GET', candidate).then(
          () => 'sent' as const,
          (error: unknown) => error,
        );
        if (outcome !== 'sent') {
          expect(outcome).toBeInstanceOf(TypeError);
          expect(arrivals.length).toBe(before);
          return;
        }
        const arrived = arrivals.at(-1)?.url ?? '';
        expect(lenientPath(arrived).startsWith('/api/partner/v2/doc')).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
