import { createServer } from 'node:http';
import { listenOnLoopback } from '../helpers/loopback.js';
import { watchTraffic } from '../helpers/traffic.js';

/** What the server does with one create request, after checking the key. */
export type Script =
  /** Generate (or 604 when already generated) and answer. */
  | 'normal'
  /** Generate, then destroy the socket instead of answering: the answer is lost. */
  | 'generate-then-drop'
  /** Destroy the socket after reading the body, without generating. */
  | 'drop'
  /** Answer 500 without generating. */
  | 'error-500'
  /** Generate, then hold the answer until the server closes (a client timeout or abort sees no answer). */
  | 'generate-then-hang'
  /** Hold the request without generating until the server closes. */
  | 'hang'
  /** Answer 429 (with `Retry-After: 0`) without generating. */
  | 'rate-limited'
  /** Answer 429 with `Retry-After: 120` without generating. */
  | 'rate-limited-long'
  /** Answer 502 with the service's envelope for portal code 214 (a definitive refusal) without generating. */
  | 'portal-214-as-502'
  /** Answer 502 with the service's envelope for portal code 604, without generating. */
  | 'portal-604-as-502'
  /** Answer 200 with `{ success: false }` and no error code, without generating. */
  | 'success-false-200'
  /** Generate at once, answer after `slowMs`. */
  | 'generate-then-slow'
  /**
   * Check for a bill on arrival, record it `slowMs` later, answer then: a service that has not yet recorded the first
   * request's bill when a resend arrives generates a second one (issue 17, finding 5).
   */
  | 'check-then-record-later';

/** One POST the server read, in arrival order. */
export interface Post {
  readonly key: string;
  readonly docHashId: string;
  /** `Date.now()` when the POST was read: the clock of the SDK's send times (test/helpers/send-times.ts). */
  readonly at: number;
  readonly body: unknown;
}

/**
 * A loopback e-way bill service written for these tests (node:http on 127.0.0.1, a free port): keys by bearer token,
 * documents that take one e-way bill each (a second answers 400 `PORTAL_ERROR_604`), unknown documents answer 400
 * `INVALID_HASH_ID`, and a per-document script of faults consumed in order.
 */
export async function startBillServer(options: {
  keys: readonly string[];
  documents: readonly string[];
  /** Milliseconds of the slow scripts. @default 1000 */
  slowMs?: number;
}) {
  const slowMs = options.slowMs ?? 1000;
  const timers = new Set<NodeJS.Timeout>();
  const whenIdle = new Set<() => void>();
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
      if (timers.size === 0) for (const resolve of whenIdle.values()) resolve();
      if (timers.size === 0) whenIdle.clear();
    }, ms);
    timers.add(timer);
  };
  const keys = new Set(options.keys);
  const documents = new Set(options.documents);
  const generated = new Map<string, number>();
  const scripts = new Map<string, Script[]>();
  const posts: Post[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const key = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const match = /^\/api\/partner\/v2\/ewaybill\/([^/]+)$/.exec(req.url ?? '');
      if (req.method !== 'POST' || !match?.[1]) return send(404, { success: false, error_code: 'NOT_FOUND' });
      const docHashId = decodeURIComponent(match[1]);
      const text = Buffer.concat(chunks).toString('utf8');
      posts.push({ key, docHashId, at: Date.now(), body: text ? JSON.parse(text) : undefined });
      for (const wake of waiters.splice(0)) wake();
      if (!keys.has(key)) return send(401, { success: false, error_code: 'UNAUTHORIZED', message: 'bad key' });
      if (!documents.has(docHashId)) {
        return send(400, { success: false, error_code: 'INVALID_HASH_ID', message: `No document ${docHashId}` });
      }
      const script = scripts.get(docHashId)?.shift() ?? 'normal';
      if (script === 'drop') return req.socket.destroy();
      if (script === 'hang') return;
      if (script === 'error-500') return send(500, { success: false, error_code: 'INTERNAL_SERVER_ERROR' });
      if (script === 'rate-limited' || script === 'rate-limited-long') {
        res.setHeader('retry-after', script === 'rate-limited' ? '0' : '120');
        return send(429, { success: false, error_code: 'RATE_LIMITED', message: 'slow down' });
      }
      if (script === 'portal-214-as-502' || script === 'portal-604-as-502') {
        const code = script === 'portal-214-as-502' ? 214 : 604;
        return send(502, { success: false, error_code: `PORTAL_ERROR_${code}`, message: `portal said ${code}` });
      }
      if (script === 'success-false-200') return send(200, { success: false, message: 'not now' });
      if (script === 'check-then-record-later') {
        const seen = generated.has(docHashId);
        return later(slowMs, () => {
          if (seen) return send(400, { success: false, error_code: 'PORTAL_ERROR_604', message: 'already generated' });
          generated.set(docHashId, (generated.get(docHashId) ?? 0) + 1);
          send(200, { success: true, message: `E-way bill generated for ${docHashId}` });
        });
      }
      if (generated.has(docHashId)) {
        return send(400, { success: false, error_code: 'PORTAL_ERROR_604', message: 'already generated' });
      }
      generated.set(docHashId, (generated.get(docHashId) ?? 0) + 1);
      if (script === 'generate-then-drop') return req.socket.destroy();
      if (script === 'generate-then-hang') return;
      const answer = () => send(200, { success: true, message: `E-way bill generated for ${docHashId}` });
      if (script === 'generate-then-slow') return later(slowMs, answer);
      answer();
    });
  });
  const traffic = watchTraffic(server);
  const { port, close } = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}/api/partner`,
    posts,
    /** The POSTs of one document. */
    postsOf: (docHashId: string) => posts.filter((p) => p.docHashId === docHashId).length,
    /** How many e-way bills each document got (never more than one). */
    generated,
    /** Scripts the next requests of a document, in order; later ones are 'normal'. */
    script(docHashId: string, ...steps: Script[]) {
      scripts.set(docHashId, [...(scripts.get(docHashId) ?? []), ...steps]);
    },
    /** Hooks for one client, and whether its traffic is on its way: see `watchTraffic` (test/helpers/traffic.ts). */
    traffic: () => traffic,
    /** Resolves once no slow answer is pending: every bill the service was still working on is recorded. */
    idle: () =>
      new Promise<void>((resolve) => {
        if (timers.size === 0) resolve();
        else whenIdle.add(resolve);
      }),
    /** Resolves once `count` POSTs have arrived (rejects after `ms`). */
    async waitForPosts(count: number, ms = 10_000): Promise<void> {
      const deadline = Date.now() + ms;
      while (posts.length < count) {
        if (Date.now() > deadline) throw new Error(`only ${posts.length} of ${count} POSTs arrived within ${ms} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 50);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await close();
    },
  };
}

export type BillServer = Awaited<ReturnType<typeof startBillServer>>;
