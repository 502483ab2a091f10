// `startMockServer().close()` stops the webhook deliveries it has in flight: a test process whose receiver never
// answers exits as soon as it closes the mock, not after the 10 s delivery timeout. A real child process running the
// built testing entry, a real loopback receiver that never answers.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEntry } from '../cli/cli-process.js';

let sdk: Awaited<ReturnType<typeof buildEntry>>;
beforeAll(async () => {
  sdk = await buildEntry('testing', 'src/testing/index.ts');
  writeFileSync(
    join(sdk.dir, 'close.mjs'),
    `import { createServer } from 'node:http';
import { startMockServer } from './testing.mjs';
// A receiver that reads each delivery and never answers.
let arrivals = 0;
let arrived = () => {};
const receiver = createServer((req) => { req.resume(); arrivals += 1; arrived(); });
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
receiver.unref();
const until = (n) => new Promise((resolve) => { arrived = () => { if (arrivals >= n) resolve(); }; arrived(); });
// A delivery timeout far beyond the test's guard: a delivery that close() did not abort keeps the process alive.
const webhook = {
  url: 'http://127.0.0.1:' + receiver.address().port + '/hook',
  secret: 'whsec_close_word_test',
  timeoutMs: 600_000,
};
const mock = await startMockServer({ webhook });
// A delivery of its own (a document created through the API), and one the test asked for.
const created = await fetch(mock.baseUrl + '/v2/doc', {
  method: 'POST',
  headers: { authorization: 'Bearer ' + mock.apiKey, 'content-type': 'application/json' },
  body: JSON.stringify({ document_type: 'invoice' }),
});
await created.arrayBuffer();
await until(1);
const asked = mock.service.sendDocumentEvent().then(() => 'answered', (e) => e.message);
await until(2);
const started = Date.now();
await mock.close();
const outcome = await asked;
console.log(JSON.stringify({ status: created.status, arrivals, outcome, closeMs: Date.now() - started }));
process.on('exit', () => console.log(JSON.stringify({ exitMs: Date.now() - started })));
`,
  );
}, 60_000);
afterAll(() => sdk?.remove());

describe('startMockServer().close() with webhook deliveries in flight', () => {
  it('aborts them, so the process exits after close(), not after the delivery timeout', async () => {
    const child = spawn(process.execPath, [join(sdk.dir, 'close.mjs')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    // Before the fix the process lived on for the delivery timeout (10 minutes here): the guard kills it long before,
    // and the test fails on the signal. The guard only catches that hang; it is not a bound on how fast the exit is.
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('exit', (c, s) => resolve([c, s])),
    );
    clearTimeout(killer);
    expect({ code, signal, err }).toEqual({ code: 0, signal: null, err: '' });
    const [result, exit] = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(result).toMatchObject({ status: 200, arrivals: 2 });
    expect(result?.outcome).toMatch(/closed/);
    expect(exit).toHaveProperty('exitMs');
  }, 90_000);
});
