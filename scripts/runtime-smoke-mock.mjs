// The loopback mock of scripts/test-runtimes.mjs, in a worker thread of its own (the main thread is busy with Miniflare
// and esbuild while the runs start). Each arrival is stamped with `Date.now()`: the harness checks that no request
// arrived before the runtime says it sent it, never the gap between two arrivals. POST {prefix}/v2/ewaybill/{doc} with
// a smoke key (`runtime-smoke-…`); one e-way bill per document, then 604. Each request of a smoke key is posted to the
// main thread as { key, record }; 'flush' is answered { flushed: true } after every record before it.
import { createServer } from 'node:http';
import { parentPort } from 'node:worker_threads';

const generated = new Set();
const server = createServer((req, res) => {
  // The request's arrival (its headers were read), on the clock the runtimes stamp their sends with: `Date.now()`.
  const at = Date.now();
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const answer = (status, body) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const key = /^Bearer (runtime-smoke-.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const match = /^\/api\/partner\/v2\/ewaybill\/([^/]+)$/.exec(req.url ?? '');
    if (key === undefined) return answer(401, { success: false, error_code: 'UNAUTHORIZED' });
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = undefined;
    }
    const record = {
      at,
      method: req.method,
      url: req.url,
      contentType: req.headers['content-type'],
      traceparent: req.headers.traceparent,
      body,
    };
    parentPort.postMessage({ key, record });
    if (req.method !== 'POST' || !match) return answer(404, { success: false, error_code: 'NOT_FOUND' });
    const doc = decodeURIComponent(match[1]);
    if (generated.has(doc)) {
      return answer(400, {
        success: false,
        error_code: 'PORTAL_ERROR_604',
        message: 'E-way bill is already generated for this document',
        errors: {},
      });
    }
    generated.add(doc);
    return answer(200, { success: true, message: 'E-way bill generated' });
  });
});
parentPort.on('message', (message) => {
  if (message === 'flush') parentPort.postMessage({ flushed: true });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ listening: server.address().port }));
