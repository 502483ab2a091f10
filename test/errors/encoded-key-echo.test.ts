// Issue 28.9: a 500 page that echoed `encodeURIComponent(key)` for a key with `/ + =` reached the error whole: the
// redaction matched only the key as it is. Against a real node:http server on loopback that echoes the key it received
// in the forms a web stack writes it in, in the page and in a header.
import { createServer } from 'node:http';
import { inspect } from 'node:util';
import { type ApiError, ServerError, ServiceClient } from 'invoicing-service-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../helpers/loopback.js';
import { validModel } from '../helpers/model.js';

/** A base64 key: `/`, `+` and `=` are what percent-encoding rewrites. */
const KEY = 'sk_live/aB9+cD8/eF7+gH6/iJ5==';

const html = (text: string) => text.replace(/[&<>"'/]/g, (c) => `&#x${c.charCodeAt(0).toString(16).toUpperCase()};`);
const FORMS: readonly [string, (key: string) => string][] = [
  ['encodeURIComponent', encodeURIComponent],
  ['encodeURIComponent, lower-case hex', (k) => encodeURIComponent(k).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())],
  ['a form (URLSearchParams)', (k) => new URLSearchParams({ t: k }).toString().slice(2)],
  ['encoded twice', (k) => encodeURIComponent(encodeURIComponent(k))],
  ['HTML character references (an escaping template)', html],
];

let echoForm: (key: string) => string = encodeURIComponent;
let baseUrl: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const received = String(req.headers.authorization).replace(/^Bearer /, '');
      const echoed = echoForm(received);
      res.writeHead(500, { 'content-type': 'text/html', 'x-debug-token': echoed });
      res.end(`<html><body><h1>500</h1><p>GET ${req.url}?token=${echoed}</p><p>100% broken</p></body></html>`);
    });
  });
  const started = await listenOnLoopback(server);
  baseUrl = `http://127.0.0.1:${started.port}/api/partner`;
  close = started.close;
});
afterAll(() => close());

/** Every way a partner's code could print an error. */
function rendered(error: unknown): string {
  const e = error as ApiError;
  return [
    e.message,
    e.stack,
    inspect(e, { depth: 20, showHidden: true }),
    JSON.stringify(e),
    JSON.stringify(e.body ?? null),
    JSON.stringify(e.headers ?? null),
  ].join('\n');
}

const client = () =>
  new ServiceClient({ apiKey: KEY, baseUrl, preflight: 'off', rateLimiter: { acquire: async () => undefined } });

describe('an echo of the key in an encoded form is redacted', () => {
  it.each(FORMS)('in a 500 page and header written with %s', async (_how, form) => {
    echoForm = form;
    const encoded = form(KEY);
    expect(encoded).not.toBe(KEY);
    for (const call of [
      client().createEwayBill('doc_1', validModel()),
      client().request('POST', '/v2/doc', { body: { a: 1 } }),
    ]) {
      const error = await call.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServerError);
      const text = rendered(error);
      expect(text).toContain('[redacted]');
      expect(text).toContain('100% broken');
      expect(text).not.toContain(encoded);
      expect(text).not.toContain(KEY);
      // Not a part of it either: the run between two encoded characters.
      expect(text).not.toContain('cD8');
      expect((error as ApiError).headers['x-debug-token']).toBe('[redacted]');
    }
  });
});
