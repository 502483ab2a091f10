// A multi-tenant platform's end of day through the runtime's own fetch: one client per key, every call at once. Node's
// fetch opens a connection per request in flight with no limit per origin, so a process runs out of file descriptors
// (EMFILE at connect: found with 10,000 keys × 3 calls against a loopback server, a third of the calls failed). Such a
// call was never written: it must say so (`mayHaveSucceeded: false`, retried by the default policy), not send the
// partner to reconcile bills that do not exist. A real child process with a low file limit (`ulimit -n`), a real
// loopback server that counts the bills: every success has its bill, every "not sent" has none.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEntry } from '../cli/cli-process.js';
import { listenOnLoopback } from '../helpers/loopback.js';
import { validModel } from '../helpers/model.js';

let sdk: Awaited<ReturnType<typeof buildEntry>>;
beforeAll(async () => {
  sdk = await buildEntry('index', 'src/index.ts');
  writeFileSync(
    join(sdk.dir, 'burst.mjs'),
    `import { ServiceClient } from './index.mjs';
const [baseUrl, count, retries] = process.argv.slice(2);
const model = JSON.parse(process.env.MODEL);
const noWait = { acquire: async () => undefined };
// Loads ky and the preflight rules before the burst: module files need descriptors too.
await new ServiceClient({ apiKey: 'emfile_warm_key_0123', baseUrl, rateLimiter: noWait }).createEwayBill('warm', model);
// The first failed attempt (a retry, or a call that failed) is told on stderr (already open: no descriptor needed).
let told = false;
const tell = () => { if (!told) { told = true; process.stderr.write('first-failure\\n'); } };
const calls = Array.from({ length: Number(count) }, (_, i) =>
  new ServiceClient({ apiKey: 'emfile_key_' + i + '_0123456789', baseUrl, rateLimiter: noWait, maxRetries: Number(retries), hooks: { onRetry: tell } })
    .createEwayBill('doc-' + i, model)
    .then(
      () => ({ doc: 'doc-' + i, ok: true }),
      (e) => (tell(), { doc: 'doc-' + i, ok: false, code: e.code, mayHaveSucceeded: e.mayHaveSucceeded, message: String(e.message).slice(0, 200) }),
    ),
);
process.stdout.write(JSON.stringify(await Promise.all(calls)));
`,
  );
}, 60_000);
afterAll(() => sdk?.remove());

interface Outcome {
  doc: string;
  ok: boolean;
  code?: string;
  mayHaveSucceeded?: boolean;
  message?: string;
}

/**
 * Runs the burst in a child whose file limit is `limit`. The server holds every answer of the burst until the child
 * says an attempt failed (the limit bit), so the burst's connections are all open at once however slowly a loaded
 * machine opens them; then it answers them all, and every later request at once.
 */
async function burst(count: number, retries: number, limit: number) {
  const bills = new Map<string, number>();
  const held: (() => void)[] = [];
  let released = false;
  const release = () => {
    released = true;
    for (const answer of held.splice(0)) answer();
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const doc = req.url?.split('/').at(-1) ?? '';
      if (req.method === 'POST') bills.set(doc, (bills.get(doc) ?? 0) + 1);
      const answer = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: true, message: 'E-way bill 331000123456 generated' }));
      };
      if (released || doc === 'warm') answer();
      else held.push(answer);
    });
  });
  const { port, close } = await listenOnLoopback(server);
  try {
    const child = spawn(
      'bash',
      [
        '-c',
        `ulimit -n ${limit} && exec "$0" "$@"`,
        process.execPath,
        join(sdk.dir, 'burst.mjs'),
        `http://127.0.0.1:${port}/api`,
        String(count),
        String(retries),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MODEL: JSON.stringify(validModel()) } },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk;
      if (err.includes('first-failure')) release();
    });
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('exit', (exit) => {
        clearTimeout(timer);
        resolve(exit);
      });
    });
    expect(code, err).toBe(0);
    return { outcomes: JSON.parse(out) as Outcome[], bills };
  } finally {
    await close();
  }
}

describe('a burst that runs the process out of file descriptors (EMFILE at connect)', () => {
  it('every call that failed at connect says it was not sent, and has no bill; every success has exactly one', async () => {
    const { outcomes, bills } = await burst(120, 0, 64);
    const failedAtConnect = outcomes.filter((o) => !o.ok && o.message?.includes('EMFILE'));
    // The limit must really bite, or this test checks nothing.
    expect(failedAtConnect.length).toBeGreaterThan(10);
    for (const o of failedAtConnect) {
      expect(o, JSON.stringify(o)).toMatchObject({ code: 'CONNECTION_ERROR', mayHaveSucceeded: false });
    }
    for (const o of outcomes) {
      if (o.ok) expect(bills.get(o.doc), o.doc).toBe(1);
      else if (o.mayHaveSucceeded === false) expect(bills.get(o.doc), o.doc).toBeUndefined();
    }
  }, 60_000);

  it('with the default retries, the calls not sent are sent again once descriptors free up: more bills, none twice', async () => {
    const { outcomes, bills } = await burst(120, 2, 64);
    const ok = outcomes.filter((o) => o.ok);
    expect(ok.length).toBeGreaterThan(outcomes.length - 10);
    for (const o of outcomes) {
      if (o.ok) expect(bills.get(o.doc), o.doc).toBe(1);
      else expect(o.mayHaveSucceeded === false ? (bills.get(o.doc) ?? 0) : 0, JSON.stringify(o)).toBe(0);
    }
    expect([...bills.values()].every((n) => n === 1)).toBe(true);
  }, 60_000);
});
