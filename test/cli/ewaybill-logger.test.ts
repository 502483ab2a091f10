// The CLI's client had no logger, so the journal's warnings (a bill made from an earlier body of an edited document,
// an outcome it could not record) never reached the user. Now they are written on stderr, the key masked. The built
// CLI as a child process, against a loopback stand-in of the service.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileJournal } from '../../src/journal/file-journal.js';
import { journalBodyHash, journalKeyHash } from '../../src/journal/hashes.js';
import { validModel } from '../helpers/model.js';
import { type BillServer, startBillServer } from '../workflow/bill-server.js';
import { runCli, useBuiltCli } from './cli-process.js';

const KEY = 'sk_live_logger_word_lantern_cobalt';
const built = useBuiltCli('ewaybill-logger');

let server: BillServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `ewaybill create` as a child process with this SERVICE_LOG ('' overrides one the test runner may have). */
const create = (input: string, output: string, baseUrl: string, log: string) =>
  runCli(built.cli.file, ['ewaybill', 'create', '--input', input, '--output', output, '--progress', 'lines'], {
    SERVICE_API_KEY: KEY,
    SERVICE_BASE_URL: baseUrl,
    SERVICE_LOG: log,
  });

/** A journal in which a run sent an earlier body of `docHashId` and was killed before its outcome was recorded. */
async function journalWithEarlierBody(output: string, baseUrl: string, docHashId: string) {
  const journal = createFileJournal(`${output}.journal`);
  const body = JSON.stringify({ ...validModel(), vehicle_number: 'KA01AB0001' });
  const document = { baseUrl, docHashId };
  const owner = randomUUID();
  await journal.claim(document, owner, 60_000);
  await journal.recordIntent({
    ...document,
    owner,
    body,
    bodyHash: journalBodyHash(body),
    keyHash: journalKeyHash(KEY),
    inFlightMs: 0,
  });
  await journal.release(document, owner);
  await journal.close();
}

describe("ewaybill create: the client's warnings", () => {
  it('a journal warning is written on stderr, and a document id holding the key is masked in it', async () => {
    // A document id a careless export filled with the key: whatever text carries it, it never leaves.
    const edited = `edited-${KEY}`;
    server = await startBillServer({ keys: [KEY], documents: [edited, 'plain-1'] });
    const input = join(built.dir, 'bills.jsonl');
    const output = join(built.dir, 'results.jsonl');
    const lines = [edited, 'plain-1'].map((docHashId) => JSON.stringify({ docHashId, model: validModel() }));
    writeFileSync(input, `${lines.join('\n')}\n`);
    await journalWithEarlierBody(output, server.baseUrl, edited);
    const run = create(input, output, server.baseUrl, '');
    expect(await run.exit(60_000)).toBe(0);
    expect(run.stderr()).toMatch(
      /^invoicing-service-sdk: the e-way bill of document edited-\[redacted\] was made from an earlier body of the document, sent before it was edited \{"docHashId":"edited-\[redacted\]"\}$/m,
    );
    // Warnings only: no line per request unless SERVICE_LOG asks for them.
    expect(run.stderr()).not.toMatch(/invoicing-service-sdk: (request|response)/);
    expect(run.stderr() + run.stdout()).not.toContain(KEY);
    expect(server.posts.map((post) => post.docHashId)).toEqual([edited, 'plain-1']);
  }, 90_000);

  it("SERVICE_LOG=debug adds the client's line per request and response, the key masked in their URLs", async () => {
    const id = `doc-${KEY}`;
    server = await startBillServer({ keys: [KEY], documents: [id] });
    const input = join(built.dir, 'debug-bills.jsonl');
    const output = join(built.dir, 'debug-results.jsonl');
    writeFileSync(input, `${JSON.stringify({ docHashId: id, model: validModel() })}\n`);
    const run = create(input, output, server.baseUrl, 'debug');
    expect(await run.exit(60_000)).toBe(0);
    expect(run.stderr()).toMatch(
      /^invoicing-service-sdk: request \{"method":"POST","url":"http:\/\/127\.0\.0\.1:\d+\/api\/partner\/v2\/ewaybill\/doc-\[redacted\]",/m,
    );
    expect(run.stderr()).toMatch(/^invoicing-service-sdk: response \{.*"status":200/m);
    expect(run.stderr() + run.stdout()).not.toContain(KEY);
  }, 90_000);
});
