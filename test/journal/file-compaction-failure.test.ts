// A compaction that fails (here: the rename of its temporary file, as on a full or read-only disk) never fails the
// change that triggered it, and the journal goes on with its file as it was.
import type * as fs from 'node:fs';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileJournal, journalBodyHash } from 'invoicing-service-sdk/journal';
import { afterEach, expect, it, vi } from 'vitest';

const failRename = vi.hoisted(() => ({ on: false }));
vi.mock('node:fs', async (importOriginal) => {
  const original = await importOriginal<typeof fs>();
  return {
    ...original,
    renameSync: (from: fs.PathLike, to: fs.PathLike) => {
      if (failRename.on) throw Object.assign(new Error('ENOSPC: no space left on device, rename'), { code: 'ENOSPC' });
      original.renameSync(from, to);
    },
  };
});

const dirs: string[] = [];
afterEach(() => {
  failRename.on = false;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it('records the change when the compaction it triggers fails, leaves no temporary file, and compact() reports the failure', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'journal-compaction-'));
  dirs.push(dir);
  const path = join(dir, 'bills.journal');
  const journal = createFileJournal(path, { compactAtBytes: 4096 });
  const BASE = 'https://service.test';
  failRename.on = true;
  const body = JSON.stringify({ pad: 'x'.repeat(200) });
  for (let i = 0; i < 40; i++) {
    const doc = { baseUrl: BASE, docHashId: `doc-${i}` };
    await journal.claim(doc, 'me', 60_000);
    const sent = await journal.recordIntent({
      ...doc,
      owner: 'me',
      body,
      bodyHash: journalBodyHash(body),
      inFlightMs: 1,
    });
    expect(sent.status).toBe('sent-maybe');
  }
  expect(journal.stats().bytes).toBeGreaterThan(8192); // compactions were due, and failed
  expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  await expect(journal.compact()).rejects.toMatchObject({ name: 'JournalError', message: /could not compact.*ENOSPC/ });
  failRename.on = false;
  expect(await journal.compact()).toEqual({ dropped: 0, kept: 40 });
  await journal.close();
  const again = createFileJournal(path);
  expect(await again.pending()).toHaveLength(40);
  await again.close();
});
