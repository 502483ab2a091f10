// Issue 28.9: a 500 that echoed `encodeURIComponent(key)` for a key with `/ + =` reached the CLI's out.jsonl and its
// stdout. The CLI as a child process, against a real node:http server on loopback that echoes the key it received
// percent-encoded, in a JSON error envelope and in an HTML page.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../helpers/loopback.js';
import { validModel } from '../helpers/model.js';
import { buildCli, runCli } from './cli-process.js';

const KEY = 'sk_live/aB9+cD8/eF7+gH6/iJ5==';

let cli: Awaited<ReturnType<typeof buildCli>>;
let dir: string;
beforeAll(async () => {
  cli = await buildCli();
  dir = mkdtempSync(join(process.cwd(), '.tmp', 'ewaybill-key-echo-'));
}, 60_000);
afterAll(() => {
  cli?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('ewaybill create with a service that echoes the key percent-encoded', () => {
  it('writes no encoded copy of the key to out.jsonl, stdout or stderr', async () => {
    const posts: string[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        posts.push(`${req.method} ${req.url}`);
        const echoed = encodeURIComponent(String(req.headers.authorization).replace(/^Bearer /, ''));
        if (req.url?.endsWith('doc_json')) {
          res.writeHead(500, { 'content-type': 'application/json', 'x-request-id': `req_${echoed}` });
          res.end(
            JSON.stringify({
              success: false,
              error_code: 'INTERNAL',
              message: `upstream refused token=${echoed}`,
              errors: { authorization: [`Bearer ${echoed}`] },
            }),
          );
        } else {
          res.writeHead(500, { 'content-type': 'text/html' });
          res.end(`<html><body><h1>Internal Server Error</h1><pre>GET ${req.url}?token=${echoed}</pre></body></html>`);
        }
      });
    });
    const { port, close } = await listenOnLoopback(server);
    try {
      const input = join(dir, 'bills.jsonl');
      const output = join(dir, 'out.jsonl');
      writeFileSync(
        input,
        ['doc_json', 'doc_html'].map((docHashId) => JSON.stringify({ docHashId, model: validModel() })).join('\n'),
      );
      const run = runCli(cli.file, ['ewaybill', 'create', '--input', input, '--output', output, '--preflight', 'off'], {
        SERVICE_API_KEY: KEY,
        SERVICE_BASE_URL: `http://127.0.0.1:${port}/api/partner`,
      });
      expect(await run.exit(30_000)).toBe(1);
      // Each document was sent (the batch sends a 500's document again, and is answered the same).
      expect(new Set(posts)).toEqual(
        new Set(['POST /api/partner/v2/ewaybill/doc_json', 'POST /api/partner/v2/ewaybill/doc_html']),
      );
      const written = readFileSync(output, 'utf8');
      const lines = written
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.map((line) => [line.docHashId, line.code])).toEqual([
        ['doc_json', 'SERVER_ERROR'],
        ['doc_html', 'SERVER_ERROR'],
      ]);
      expect(written).toContain('[redacted]');
      for (const text of [written, run.stdout(), run.stderr()]) {
        expect(text).not.toContain(encodeURIComponent(KEY));
        expect(text).not.toContain(KEY);
        expect(text).not.toContain('cD8');
      }
    } finally {
      await close();
    }
  });
});
