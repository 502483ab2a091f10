// Issue 28.11 and 28.4: what `SERVICE_LOG=debug` prints, seen from outside a real process. A program's stdout is its
// output (a CLI's results, a pipeline's data): the client's debug lines go to stderr. A line says what the call had,
// never `docHashId: undefined`, and never the values of the call's query (a session token, a phone number).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEntry } from '../cli/cli-process.js';
import { listenOnLoopback } from '../helpers/loopback.js';

const SECRET = 'sess_SECRET_TOKEN_123';
const PHONE = '9876543210';

let sdk: Awaited<ReturnType<typeof buildEntry>>;
beforeAll(async () => {
  sdk = await buildEntry('index', 'src/index.ts');
  writeFileSync(
    join(sdk.dir, 'log-lines.mjs'),
    `import { ServiceClient } from './index.mjs';
const client = new ServiceClient({ apiKey: 'sk_log_lines_process_key', baseUrl: process.argv[2], rateLimiter: { acquire: async () => undefined } });
const doc = await client.request('GET', '/v2/doc/doc_1', {
  query: { gstin: '29AAACI1681G1Z0', phone: '${PHONE}', token: '${SECRET}' },
});
process.stdout.write(JSON.stringify({ result: doc }) + '\\n');
`,
  );
}, 60_000);
afterAll(() => sdk?.remove());

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(guard);
      resolve({ code, out, err });
    }),
  );
}

describe('SERVICE_LOG=debug in a real process', () => {
  it('writes its lines to stderr, leaves stdout to the program, omits absent fields and redacts query values', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ hash_id: 'doc_1' }));
    });
    const { port, close } = await listenOnLoopback(server);
    try {
      const { code, out, err } = await run([join(sdk.dir, 'log-lines.mjs'), `http://127.0.0.1:${port}/api/partner`], {
        SERVICE_LOG: 'debug',
      });
      expect(code, err).toBe(0);
      // The service received the query as given: only what leaves for the logs is redacted.
      expect(seen[0]).toContain(`token=${SECRET}`);
      // stdout is the program's own output, and nothing else.
      expect(out).toBe(`${JSON.stringify({ result: { hash_id: 'doc_1' } })}\n`);
      expect(err).toContain('invoicing-service-sdk: request');
      expect(err).toContain('invoicing-service-sdk: response');
      expect(err).toContain('/v2/doc/doc_1?gstin=REDACTED&phone=REDACTED&token=REDACTED');
      expect(err).not.toContain('docHashId');
      expect(err).not.toContain('undefined');
      expect(err).not.toContain(SECRET);
      expect(err).not.toContain(PHONE);
    } finally {
      await close();
    }
  });
});
