import type { IncomingMessage, ServerResponse } from 'node:http';
import { DECIDE, type EmulatorCore } from './emulator.js';
import { errorAnswer, type Outcome } from './outcome.js';

/** Bodies larger than this are refused (413) without being read in full; the service's bodies are small. */
export const MAX_REQUEST_BYTES = 1024 * 1024;

function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        resolve('too-large');
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function toRequest(req: IncomingMessage, body: Buffer, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method,
    headers,
    signal,
    ...(hasBody ? { body: new Uint8Array(body) } : {}),
  });
}

function send(res: ServerResponse, outcome: Outcome): void {
  if (outcome.kind === 'drop') {
    res.socket?.destroy();
    return;
  }
  const bytes = Buffer.from(outcome.body);
  res.writeHead(outcome.status, { ...outcome.headers, 'content-length': String(bytes.length) });
  if (!outcome.cut) {
    res.end(bytes);
    return;
  }
  // Headers promise the whole length, half arrives, then the socket is destroyed: a reader sees a cut body.
  res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.destroy());
}

/** A node:http request listener that answers with an emulator core. */
export function nodeListener(core: EmulatorCore): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const arrivedAt = core.now();
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    void (async () => {
      const body = await readBody(req);
      if (body === 'too-large') {
        res.setHeader('connection', 'close');
        send(res, errorAnswer(413, 'PAYLOAD_TOO_LARGE', `Request bodies are limited to ${MAX_REQUEST_BYTES} bytes`));
        return;
      }
      send(res, await core[DECIDE](toRequest(req, body, gone.signal), arrivedAt));
    })().catch(() => res.socket?.destroy());
  };
}
