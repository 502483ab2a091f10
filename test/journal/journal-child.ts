// A process of test/journal/file-crash.test.ts, built by tsup (test/cli/cli-process.ts) and run by Node.
// MODE=append: records an intent, then the outcome 'generated', for documents doc-0 … doc-(COUNT-1) that the journal
// does not know as generated yet, printing one JSON line after each call resolved (an acknowledgement), until done,
// killed, or a call fails ({"failed"}, exit code 4). MODE=hold: opens the journal (waiting LOCK_WAIT_MS for a lock), prints {"opened":pid}, and stays until killed.
import { createFileJournal, journalBodyHash } from '../../src/journal/index.js';

const { JOURNAL_PATH, MODE, COUNT, COMPACT_AT, LOCK_WAIT_MS } = process.env;
const BASE = 'https://service.test/api/partner';
const journal = createFileJournal(JOURNAL_PATH as string, {
  compactAtBytes: COMPACT_AT ? Number(COMPACT_AT) : undefined,
  lockWaitMs: LOCK_WAIT_MS ? Number(LOCK_WAIT_MS) : undefined,
});
const say = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

try {
  await journal.open();
} catch (error) {
  say({ refused: (error as Error).name, message: (error as Error).message });
  process.exit(3);
}
if (MODE === 'hold') {
  // Before the line: the test may send SIGTERM as soon as it reads it.
  process.on('SIGTERM', () => void journal.close().then(() => process.exit(0)));
  say({ opened: process.pid });
  setInterval(() => {}, 60_000);
} else {
  try {
    await appendAll();
  } catch (error) {
    say({ failed: (error as Error).name, message: (error as Error).message });
    process.exit(4);
  }
  await journal.close();
  say({ done: true });
}

async function appendAll() {
  for (let i = 0; i < Number(COUNT); i++) {
    const document = { baseUrl: BASE, docHashId: `doc-${i}` };
    if ((await journal.get(document))?.status === 'generated') continue;
    await journal.claim(document, 'child', 60_000);
    // Bodies of different lengths, so the cuts land everywhere in a line.
    const body = JSON.stringify({ doc: i, pad: 'x'.repeat((i * 37) % 300) });
    const sent = await journal.recordIntent({
      ...document,
      owner: 'child',
      body,
      bodyHash: journalBodyHash(body),
      inFlightMs: 10_000,
    });
    say({ intent: document.docHashId });
    const message = `E-way bill ${String(100000000000 + i)} generated`;
    await journal.recordOutcome(document, sent.attempt, {
      status: 'generated',
      result: { outcome: 'generated', message },
    });
    say({ generated: document.docHashId });
    await journal.release(document, 'child');
  }
}
