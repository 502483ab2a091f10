// The file journal against crashes: a cut at every byte of a real file, `kill -9` of a real process while it appends,
// and two processes on one file.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createFileJournal,
  type JournalOutcome,
  type JournalRecord,
  journalBodyHash,
} from 'invoicing-service-sdk/journal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEntry, runCli } from '../cli/cli-process.js';

const BASE = 'https://service.test/api/partner';
let child: Awaited<ReturnType<typeof buildEntry>>;
let dir: string;

beforeAll(async () => {
  child = await buildEntry('journal-child', 'test/journal/journal-child.ts');
  dir = mkdtempSync(join(tmpdir(), 'journal-crash-'));
}, 120_000);
afterAll(() => {
  child?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Resolves once the process has printed `count` complete lines (or exited: then with what it printed). */
function linesAfter(process_: ChildProcess, count: number): Promise<string[]> {
  return new Promise((resolve) => {
    let text = '';
    const complete = () => text.split('\n').slice(0, -1);
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (complete().length >= count) done();
    };
    const done = () => {
      process_.stdout?.off('data', onData);
      process_.off('exit', done);
      resolve(complete());
    };
    process_.stdout?.on('data', onData);
    process_.once('exit', done);
  });
}

describe('the file journal, cut at every byte', () => {
  it('reads back every acknowledged state at each cut, skips the torn line, and appends after it on a fresh line', async () => {
    const path = join(dir, 'cut-source.journal');
    const journal = createFileJournal(path);
    await journal.open();
    const ids = ['a', 'b', 'c', 'd'];
    const states = new Map<string, JournalRecord | undefined>();
    /** After each acknowledged call: the file's size and every document's record. */
    const snapshots: { size: number; records: Map<string, JournalRecord | undefined> }[] = [];
    const snap = () => snapshots.push({ size: statSync(path).size, records: new Map(states) });
    snap();
    const outcomes: JournalOutcome[] = [
      { status: 'generated', result: { outcome: 'generated', message: 'E-way bill 123456789012 généré ✓' } },
      { status: 'refused', error: { name: 'PortalError', code: 'PORTAL_ERROR', portalCode: 238, message: 'Invalid' } },
      { status: 'not-sent' },
    ];
    for (const [i, id] of ids.entries()) {
      const document = { baseUrl: BASE, docHashId: id };
      await journal.claim(document, 'me', 60_000);
      const body = JSON.stringify({ doc: id, note: 'ü'.repeat(i) });
      const sent = await journal.recordIntent({
        ...document,
        owner: 'me',
        body,
        bodyHash: journalBodyHash(body),
        inFlightMs: 1000,
      });
      states.set(id, sent);
      snap();
      const outcome = outcomes[i % 4];
      if (outcome) {
        states.set(id, await journal.recordOutcome(document, sent.attempt, outcome));
        snap();
      }
    }
    await journal.close();
    const full = readFileSync(path);
    expect(snapshots.at(-1)?.size).toBe(full.length);

    const cut = join(dir, 'cut.journal');
    const extra = { baseUrl: BASE, docHashId: 'after-the-cut' };
    for (let size = 0; size <= full.length; size++) {
      writeFileSync(cut, full.subarray(0, size));
      const expected = snapshots.findLast((snapshot) => snapshot.size <= size)?.records ?? new Map();
      const reopened = createFileJournal(cut);
      for (const id of ids) {
        expect(await reopened.get({ baseUrl: BASE, docHashId: id }), `cut at byte ${size}, ${id}`).toEqual(
          expected.get(id),
        );
      }
      // A cut inside a line leaves it torn: the next append starts a line of its own, and both reads agree.
      // (At every 5th cut, and at each line's last two bytes: each append costs an fsync.)
      const nearEnd = snapshots.some((snapshot) => snapshot.size - size >= 1 && snapshot.size - size <= 2);
      if (nearEnd || size % 5 === 0) {
        await reopened.claim(extra, 'me', 60_000);
        const body = '{"x":1}';
        const added = await reopened.recordIntent({
          ...extra,
          owner: 'me',
          body,
          bodyHash: journalBodyHash(body),
          inFlightMs: 1,
        });
        await reopened.close();
        const third = createFileJournal(cut);
        expect(await third.get(extra), `append after a cut at byte ${size}`).toEqual(added);
        for (const id of ids) expect(await third.get({ baseUrl: BASE, docHashId: id })).toEqual(expected.get(id));
        await third.close();
      } else await reopened.close();
    }
  }, 300_000);
});

describe('the file journal, killed with kill -9', () => {
  it('keeps every acknowledged intent and outcome across 30 kills of a process that appends and compacts', async () => {
    const path = join(dir, 'killed.journal');
    const COUNT = 400;
    /** What the killed processes acknowledged, over all runs. */
    const acknowledged = new Map<string, 'intent' | 'generated'>();
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let finished = false;
    for (let run = 0; run < 30 && !finished; run++) {
      // A small compaction threshold: the kills also land during compactions.
      const started = runCli(child.file, [], {
        JOURNAL_PATH: path,
        MODE: 'append',
        COUNT: String(COUNT),
        COMPACT_AT: '8192',
      });
      const lines = await linesAfter(started.child, 1 + Math.floor(random() * 40));
      started.child.kill('SIGKILL');
      await started.exit(60_000);
      for (const line of started.stdout().split('\n').slice(0, -1)) {
        const value = JSON.parse(line) as { intent?: string; generated?: string; done?: boolean; refused?: string };
        expect(value.refused, started.stdout()).toBeUndefined();
        if (value.intent) acknowledged.set(value.intent, acknowledged.get(value.intent) ?? 'intent');
        if (value.generated) acknowledged.set(value.generated, 'generated');
        if (value.done) finished = true;
      }
      expect(lines.length).toBeGreaterThan(0);

      // Reopened by this process: the dead process's lock is taken over, and nothing acknowledged is missing.
      const journal = createFileJournal(path);
      for (const [id, what] of acknowledged) {
        const record = await journal.get({ baseUrl: BASE, docHashId: id });
        if (what === 'generated') expect(record?.status, `run ${run}: ${id}`).toBe('generated');
        else expect(['sent-maybe', 'generated'], `run ${run}: ${id}`).toContain(record?.status);
      }
      const pending = await journal.pending();
      for (const record of pending) expect(acknowledged.get(record.docHashId)).not.toBe('generated');
      await journal.close();
    }
    expect(acknowledged.size).toBeGreaterThan(30);
  }, 600_000);
});

describe('the file journal on a full disk', () => {
  it('rejects the write that does not fit with JournalError, cuts its partial line off, and keeps what was acknowledged', async () => {
    const path = join(dir, 'full.journal');
    // `ulimit -f 16`: a write past 16 KiB fails (EFBIG), and the write that crosses it is cut short.
    const started = runCli(
      child.file,
      [],
      { JOURNAL_PATH: path, MODE: 'append', COUNT: '1000' },
      { fileSizeBlocks: 16 },
    );
    expect(await started.exit(60_000)).toBe(4);
    const lines = started
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, string>);
    const failed = lines.at(-1);
    expect(failed).toMatchObject({ failed: 'JournalError' });
    expect(failed?.message).toMatch(/could not write the file journal .*full\.journal/);
    // Every line in the file is whole: the partial one was cut off.
    for (const line of readFileSync(path, 'utf8').split('\n').slice(0, -1)) expect(line).toMatch(/\t[0-9a-f]{8}$/);
    const journal = createFileJournal(path);
    for (const { intent, generated } of lines) {
      if (intent)
        expect(['sent-maybe', 'generated']).toContain(
          (await journal.get({ baseUrl: BASE, docHashId: intent }))?.status,
        );
      if (generated) expect((await journal.get({ baseUrl: BASE, docHashId: generated }))?.status).toBe('generated');
    }
    expect(journal.stats().skippedLines).toBe(0);
    expect(lines.filter((line) => line.generated).length).toBeGreaterThan(3);
    await journal.close();
  }, 120_000);
});

describe('two processes on one file journal', () => {
  it('refuses the second while the first lives, naming its pid; a second that waits takes it once the first is killed', async () => {
    const path = join(dir, 'shared.journal');
    const first = runCli(child.file, [], { JOURNAL_PATH: path, MODE: 'hold' });
    const [opened] = await linesAfter(first.child, 1);
    expect(JSON.parse(opened ?? '{}')).toEqual({ opened: first.child.pid });

    const refused = runCli(child.file, [], { JOURNAL_PATH: path, MODE: 'hold' });
    expect(await refused.exit(60_000)).toBe(3);
    const answer = JSON.parse(refused.stdout()) as { refused: string; message: string };
    expect(answer.refused).toBe('JournalLockedError');
    expect(answer.message).toContain(`pid ${first.child.pid}`);

    const waiting = runCli(child.file, [], { JOURNAL_PATH: path, MODE: 'hold', LOCK_WAIT_MS: '120000' });
    // It waits while the first holds the file, and takes the lock the killed process left.
    first.child.kill('SIGKILL');
    await first.exit(60_000);
    const [took] = await linesAfter(waiting.child, 1);
    expect(JSON.parse(took ?? '{}')).toEqual({ opened: waiting.child.pid });
    waiting.child.kill('SIGTERM');
    expect(await waiting.exit(60_000)).toBe(0);
    // Released on the way out: the next process opens it at once.
    const next = createFileJournal(path);
    await next.open();
    await next.close();
  }, 120_000);
});
