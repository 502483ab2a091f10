// Retry-After as RFC 9110 writes it: delta-seconds or one of the three HTTP-date forms. Anything else is unreadable,
// so the policy backs off as without the header; `Date.parse` alone read `-5` or `1,5` as dates in 2001 ("retry now").
import { createServer } from 'node:http';
import { type RateLimitError, ServiceClient } from 'invoicing-service-sdk';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/errors/map-answer.js';
import { listenOnLoopback } from '../helpers/loopback.js';
import { freshKey } from '../helpers/model.js';

const now = Date.parse('2026-11-26T10:00:00Z');

describe('parseRetryAfter', () => {
  it.each([
    ['120', 120],
    ['0', 0],
    ['1.5', 1.5],
    ['Thu, 26 Nov 2026 10:01:30 GMT', 90],
    ['Thursday, 26-Nov-26 10:01:30 GMT', 90],
    ['Thu Nov 26 10:01:30 2026', 90],
    ['Thu, 26 Nov 2026 09:00:00 GMT', 0],
  ])('reads %j as %d seconds', (value, seconds) => {
    expect(parseRetryAfter(value, now)).toBe(seconds);
  });

  it.each(['-5', '+5', '.5', '1,5', '3600.', '2099-01-01', '1e3', 'soon', '5 minutes', 'NaN'])(
    'reads %j as unreadable (undefined)',
    (value) => {
      expect(parseRetryAfter(value, now)).toBeUndefined();
    },
  );
});

describe('a 429 with an unreadable Retry-After', () => {
  it('is retried after the backoff, not at once', async () => {
    let arrivals = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        arrivals++;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '-5' });
        res.end(JSON.stringify({ success: false, error_code: 'RATE_LIMITED', message: 'slow down' }));
      });
    });
    const { port, close } = await listenOnLoopback(server);
    try {
      const delays: number[] = [];
      const client = new ServiceClient({
        apiKey: freshKey('retry-after'),
        baseUrl: `http://127.0.0.1:${port}/api`,
        rateLimiter: { acquire: async () => undefined },
        preflight: 'off',
        maxRetries: 1,
        hooks: { onRetry: ({ delayMs }) => void delays.push(delayMs) },
      });
      const error = await client.request('GET', '/v2/product/list').catch((e: unknown) => e);
      expect((error as RateLimitError).code).toBe('RATE_LIMITED');
      expect((error as RateLimitError).retryAfter).toBeUndefined();
      expect(arrivals).toBe(2);
      expect(delays).toHaveLength(1);
      expect(delays[0]).toBeGreaterThanOrEqual(375);
    } finally {
      await close();
    }
  });
});
