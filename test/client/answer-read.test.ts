// Issue 29, item 8 (CPU per call): with the runtime's fetch, an answer of known length within the cap is read in one
// read (src/client/exchange.ts `readRuntimeBody`). The cap is on the body as decoded: a compressed answer's
// Content-Length is not its decoded size, so it is read chunk by chunk against the cap, as before. Against a real
// node:http server on loopback.
import { gzipSync } from 'node:zlib';
import { ServiceClient } from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAnswerServer } from '../helpers/answer-server.js';
import { freshKey } from '../helpers/model.js';

let server: Awaited<ReturnType<typeof startAnswerServer>>;
beforeEach(async () => {
  server = await startAnswerServer();
});
afterEach(() => server.close());

const clientOf = (maxResponseBytes: number) =>
  new ServiceClient({
    apiKey: freshKey('answer-read'),
    baseUrl: server.baseUrl,
    rateLimiter: { acquire: async () => undefined },
    maxRetries: 0,
    maxResponseBytes,
  });

/** A gzip answer whose compressed length is far below its decoded length. */
const gzipAnswer = (doc: unknown) => {
  const zipped = gzipSync(JSON.stringify(doc));
  return (_req: unknown, res: import('node:http').ServerResponse) => {
    res
      .writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': zipped.length,
      })
      .end(zipped);
  };
};

describe('reading an answer of the runtime fetch', () => {
  it('a compressed answer is capped on its decoded size, whatever its Content-Length says', async () => {
    const doc = { note: 'x'.repeat(200_000) };
    const decoded = JSON.stringify(doc).length;
    server.answer(gzipAnswer(doc), gzipAnswer(doc));
    const zippedLength = gzipSync(JSON.stringify(doc)).length;
    expect(zippedLength).toBeLessThan(10_000);
    // Within the cap once decoded: whole.
    expect(await clientOf(decoded).request('GET', '/a')).toEqual(doc);
    // Its Content-Length within the cap, its decoded body not: too large, never read whole.
    const error = await clientOf(10_000)
      .request('GET', '/a')
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ name: 'UnexpectedResponseError', reason: 'too-large', status: 200 });
  });

  it('an answer with a Content-Length within the cap is read whole, its bytes counted as bytes, not characters', async () => {
    const body = 'é'.repeat(300);
    server.answer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) }).end(body);
    });
    const error = await clientOf(1024)
      .request('GET', '/a')
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ name: 'UnexpectedResponseError', reason: 'not-json', status: 200, bodyBytes: 600 });
  });
});
