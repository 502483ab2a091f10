// Issue 28, item 7: after Ctrl+C, the documents never sent are "not sent" everywhere: in the live lines, in the bar and
// in the summary (they used to print `FAILED 20: This operation was aborted` and end the bar at `25/25 13 failed`).
// The built CLI as a child process, against a loopback stand-in of the service; SIGINT once documents were generated.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validModel } from '../helpers/model.js';
import { type BillServer, startBillServer } from '../workflow/bill-server.js';
import { type CliRun, runCli, useBuiltCli } from './cli-process.js';

const KEY = 'sk_live_stop_word_harbour';
const IDS = Array.from({ length: 25 }, (_, i) => `ACME-${String(i + 1).padStart(3, '0')}`);

const built = useBuiltCli('ewaybill-stop');
let n = 0;

let server: BillServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function start(progress: 'lines' | 'bar'): CliRun {
  n += 1;
  const input = join(built.dir, `bills-${n}.jsonl`);
  writeFileSync(input, `${IDS.map((docHashId) => JSON.stringify({ docHashId, model: validModel() })).join('\n')}\n`);
  const output = join(built.dir, `results-${n}.jsonl`);
  return runCli(built.cli.file, ['ewaybill', 'create', '--input', input, '--output', output, '--progress', progress], {
    SERVICE_API_KEY: KEY,
    SERVICE_BASE_URL: (server as BillServer).baseUrl,
  });
}

/** Sends SIGINT; once the CLI exited (130), the summary's counts: `Stopped: 2 generated, 0 failed, 23 not sent`. */
async function stop(run: CliRun) {
  run.child.kill('SIGINT');
  expect(await run.exit(30_000)).toBe(130);
  expect(run.stderr()).not.toMatch(/FAILED 20|This operation was aborted/);
  const match = /^Stopped: (\d+) generated, (\d+) failed, (\d+) not sent/m.exec(run.stdout());
  expect(match, run.stdout()).not.toBeNull();
  const [, generated, failed, notSent] = (match as RegExpExecArray).map(Number);
  return { generated: generated as number, failed: failed as number, notSent: notSent as number };
}

describe('ewaybill create stopped with Ctrl+C', () => {
  it('the live lines say "not sent" for every document never sent, as the summary does', async () => {
    server = await startBillServer({ keys: [KEY], documents: IDS });
    const run = start('lines');
    await run.waitForStderr(/^2\/25 ACME-\d{3} generated/m, 30_000);
    const counts = await stop(run);
    expect(counts.notSent).toBeGreaterThan(0);
    const stderr = run.stderr();
    const lines = stderr.split('\n').filter((line) => /^\d+\/25 ACME-\d{3} /.test(line));
    const notSent = lines.filter((line) => / not sent/.test(line));
    const failed = lines.filter((line) => / FAILED /.test(line));
    const generated = lines.filter((line) => / generated/.test(line));
    expect(notSent).toHaveLength(counts.notSent);
    expect(failed).toHaveLength(counts.failed);
    expect(generated).toHaveLength(counts.generated);
    // Every document is told once.
    expect(lines).toHaveLength(25);
    expect(new Set(lines.map((line) => line.split(' ')[1])).size).toBe(25);
    expect(stderr + run.stdout()).not.toContain(KEY);
  }, 90_000);

  it('the bar ends with the summary\'s "not sent" count, not as failures', async () => {
    server = await startBillServer({ keys: [KEY], documents: IDS });
    const run = start('bar');
    await server.waitForPosts(2, 30_000);
    const counts = await stop(run);
    expect(counts.notSent).toBeGreaterThan(0);
    const stderr = run.stderr();
    // The bar is redrawn in place (`\r` + erase line); its last drawing is what stays on screen.
    const drawings = stderr.split('\r\u001b[2K').filter((part) => part.startsWith('['));
    const last = (drawings.at(-1) ?? '').trim();
    expect(last).toMatch(/ 25\/25 /);
    expect(last).toContain(`${counts.notSent} not sent`);
    if (counts.failed === 0) expect(last).not.toMatch(/failed/);
    else expect(last).toContain(`${counts.failed} failed`);
  }, 90_000);
});
