// Issue 9, "what held must keep holding": the audit's passing cases, kept as regression tests against raw sockets.
import { createServer, type Server, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { ApiError, mayHaveSucceeded, type RateLimiter, type RetryEvent, ServiceClient } from 'invoicing-service-sdk';
import {
  checkGstin,
  checkTransporterId,
  isValidVehicleNumber,
  normalizeVehicleNumber,
  preflightEwayBill,
} from 'invoicing-service-sdk/gst';
import { checkWebhookUrl } from 'invoicing-service-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { freshKey, validModel } from '../helpers/model.js';

/** What the raw server does once a whole POST (headers and body) has arrived. */
type RawFault = (socket: Socket) => void;

/** A raw TCP server on loopback that reads each HTTP request whole, counts POSTs, then runs the fault. */
async function startRawServer(fault: RawFault) {
  const sockets = new Set<Socket>();
  const whenClosed = new Set<() => void>();
  let posts = 0;
  let bytesWritten = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      bytesWritten += socket.bytesWritten;
      sockets.delete(socket);
      if (sockets.size === 0) for (const resolve of whenClosed) resolve();
    });
    socket.on('error', () => {});
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = buffered.subarray(0, end).toString('latin1');
      const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.subarray(end + 4 + length);
      if (head.startsWith('POST ')) posts += 1;
      fault(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/api/partner`,
    get posts() {
      return posts;
    },
    /** Resolves once every connection has closed. */
    allClosed: () =>
      new Promise<void>((resolve) => {
        if (sockets.size === 0) resolve();
        else whenClosed.add(resolve);
      }),
    get bytesWritten() {
      return bytesWritten + [...sockets].reduce((sum, s) => sum + s.bytesWritten, 0);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const head = (status: string, headers: Record<string, string | number>) =>
  `HTTP/1.1 ${status}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

const later = (ms: number, fn: () => void) => setTimeout(fn, ms);

/** 22 ways to fail after the request was written: each must give exactly one POST and mayHaveSucceeded. */
const AFTER_WRITE: [string, RawFault][] = [
  ['close without an answer', (s) => s.destroy()],
  ['reset without an answer', (s) => s.resetAndDestroy()],
  ['half-close without an answer', (s) => s.end()],
  ['status line only, then close', (s) => s.end('HTTP/1.1 200 OK\r\n')],
  ['headers, then close', (s) => s.end(head('200 OK', { 'content-length': 100, 'content-type': 'application/json' }))],
  [
    'headers, then reset',
    (s) => {
      s.write(head('200 OK', { 'content-length': 100 }));
      later(10, () => s.resetAndDestroy());
    },
  ],
  ['part of the body, then close', (s) => s.end(`${head('200 OK', { 'content-length': 100 })}{"success":tr`)],
  [
    'part of the body, then reset',
    (s) => {
      s.write(`${head('200 OK', { 'content-length': 100 })}{"success":tr`);
      later(10, () => s.resetAndDestroy());
    },
  ],
  ['a garbage status line', (s) => s.end('NOT HTTP AT ALL\r\n\r\n')],
  ['an invalid header line', (s) => s.end('HTTP/1.1 200 OK\r\nbad header line\r\n\r\n{}')],
  [
    'a malformed chunk',
    (s) => s.end(`${head('200 OK', { 'transfer-encoding': 'chunked' })}zz\r\n{"success":true}\r\n0\r\n\r\n`),
  ],
  [
    'chunked, cut before the last chunk',
    (s) => s.end(`${head('200 OK', { 'transfer-encoding': 'chunked' })}5\r\n{"suc`),
  ],
  [
    'gzip declared, garbage sent',
    (s) => s.end(`${head('200 OK', { 'content-encoding': 'gzip', 'content-length': 10 })}0123456789`),
  ],
  [
    'gzip cut in the middle',
    (s) => {
      const zipped = gzipSync(JSON.stringify({ success: true, message: 'x'.repeat(500) }));
      s.end(
        Buffer.concat([
          Buffer.from(head('200 OK', { 'content-encoding': 'gzip', 'content-length': zipped.length })),
          zipped.subarray(0, 20),
        ]),
      );
    },
  ],
  ['an empty 200', (s) => s.end(head('200 OK', { 'content-length': 0 }))],
  [
    'a 200 that is not JSON',
    (s) => s.end(`${head('200 OK', { 'content-length': 2, 'content-type': 'text/plain' })}ok`),
  ],
  ['a 200 without success', (s) => s.end(`${head('200 OK', { 'content-length': 2 })}{}`)],
  [
    'a 200 with success "true" as a string',
    (s) => s.end(`${head('200 OK', { 'content-length': 18 })}{"success":"true"}`),
  ],
  ['a 500 HTML page', (s) => s.end(`${head('500 Internal Server Error', { 'content-length': 13 })}<h1>oops</h1>`)],
  ['a 502 with no body', (s) => s.end(head('502 Bad Gateway', { 'content-length': 0 }))],
  [
    'a 504 JSON envelope',
    (s) => {
      const body = JSON.stringify({ success: false, error_code: 'GATEWAY_TIMEOUT', message: 'upstream', errors: {} });
      s.end(`${head('504 Gateway Timeout', { 'content-length': body.length })}${body}`);
    },
  ],
  ['a timeout after the headers', (s) => s.write(head('200 OK', { 'content-length': 100 }))],
];

const noWait: RateLimiter = { acquire: async () => undefined };

describe('after the request was written, a failure gives one POST and mayHaveSucceeded: true', () => {
  it('lists 22 distinct failure modes', () => {
    expect(new Set(AFTER_WRITE.map(([label]) => label)).size).toBe(22);
  });

  for (const [label, fault] of AFTER_WRITE) {
    it(label, async () => {
      const server = await startRawServer(fault);
      try {
        const client = new ServiceClient({
          apiKey: freshKey('held'),
          baseUrl: server.baseUrl,
          rateLimiter: noWait,
          maxRetries: 3,
          timeout: 1_000,
        });
        const error = await client.createEwayBill('doc_1', validModel()).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, 'the call must fail').toBeDefined();
        expect(mayHaveSucceeded(error)).toBe(true);
        expect(server.posts).toBe(1);
      } finally {
        await server.close();
      }
    });
  }
});

describe('Retry-After values from a hostile server stay bounded', () => {
  const cases: [string, (retries: RetryEvent[]) => void][] = [
    ['garbage', (r) => expect(r[0]?.delayMs).toBeLessThanOrEqual(8_000)],
    ['-5', (r) => expect(r[0]?.delayMs).toBeGreaterThanOrEqual(0)],
    ['-1e309', (r) => expect(r[0]?.delayMs ?? 0).toBeGreaterThanOrEqual(0)],
    ['99999999999999999999', (r) => expect(r).toEqual([])],
    ['Infinity', (r) => expect(r[0]?.delayMs ?? 0).toBeLessThanOrEqual(8_000)],
    ['Fri, 01 Jan 2100 00:00:00 GMT', (r) => expect(r).toEqual([])],
    ['Thu, 01 Jan 1970 00:00:00 GMT', (r) => expect(r[0]?.delayMs).toBeLessThanOrEqual(1_000)],
    [`${'9'.repeat(5000)}`, (r) => expect(r).toEqual([])],
  ];
  for (const [value, check] of cases) {
    it(`Retry-After: ${value.slice(0, 40)}`, async () => {
      const body = JSON.stringify({ success: false, error_code: 'RATE_LIMITED', message: 'slow', errors: {} });
      let first = true;
      const server = await startRawServer((s) => {
        if (first) {
          first = false;
          s.end(`${head('429 Too Many Requests', { 'retry-after': value, 'content-length': body.length })}${body}`);
        } else {
          const ok = JSON.stringify({ success: true, message: 'ok' });
          s.end(`${head('200 OK', { 'content-length': ok.length })}${ok}`);
        }
      });
      const retries: RetryEvent[] = [];
      try {
        const client = new ServiceClient({
          apiKey: freshKey('ra'),
          baseUrl: server.baseUrl,
          rateLimiter: noWait,
          maxRetries: 1,
          hooks: { onRetry: (e) => retries.push(e) },
        });
        await client.createEwayBill('doc_1', validModel()).catch(() => undefined);
        check(retries);
        expect(server.posts).toBeLessThanOrEqual(2);
        for (const r of retries) expect(Number.isFinite(r.delayMs)).toBe(true);
      } finally {
        await server.close();
      }
    });
  }
});

describe('a 100 MB answer', () => {
  it('is cut at maxResponseBytes (10 MiB): the client stops reading and the call settles with UnexpectedResponseError', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const server = await startRawServer((s) => {
      s.write(head('200 OK', { 'content-length': 100 * 1024 * 1024, 'content-type': 'application/json' }));
      let sent = 0;
      const pump = () => {
        while (sent < 100 * 1024 * 1024 && !s.destroyed) {
          sent += chunk.length;
          if (!s.write(chunk)) return void s.once('drain', pump);
        }
      };
      pump();
    });
    try {
      const client = new ServiceClient({ apiKey: freshKey('big'), baseUrl: server.baseUrl, rateLimiter: noWait });
      const error = await client.createEwayBill('doc_1', validModel()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE', reason: 'too-large' });
      expect(mayHaveSucceeded(error)).toBe(true);
      // The client closed the connection long before 100 MB went out: once the server saw it close, the count is final.
      await server.allClosed();
      expect(server.bytesWritten).toBeLessThan(20 * 1024 * 1024);
    } finally {
      await server.close();
    }
  });
});

describe('1 MB adversarial inputs to every text check finish (no catastrophic backtracking)', () => {
  const inputs = ['A'.repeat(1_000_000), `${'29'.repeat(500_000)}!`, ' '.repeat(1_000_000), `${'a-'.repeat(500_000)}`];
  const checks: [string, (input: string) => unknown][] = [
    ['checkGstin', checkGstin],
    ['checkTransporterId', checkTransporterId],
    ['isValidVehicleNumber', isValidVehicleNumber],
    ['normalizeVehicleNumber', normalizeVehicleNumber],
    ['checkWebhookUrl', (input) => checkWebhookUrl(`https://${input}.example/`)],
    [
      'preflightEwayBill',
      (input) => preflightEwayBill({ ...validModel(), vehicle_number: input, transporter_id: input }),
    ],
  ];
  for (const [name, check] of checks) {
    // A catastrophic pattern on 1 MB takes hours: the test's timeout (60 s, about 850 times the worst case the audit
    // measured) catches that hang. How fast the checks are is a figure of the machine, not bounded here.
    it(name, () => {
      for (const input of inputs) check(input);
    }, 60_000);
  }
});
