import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createFileJournal,
  type FileJournal,
  JournalClaimLostError,
  journalBodyHash,
  journalKeyHash,
} from 'invoicing-service-sdk/journal';
import { afterEach, describe, expect, it, vi } from 'vitest';

const BASE = 'https://service.test/api/partner';
const dirs: string[] = [];
const journals: FileJournal[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const journal of journals.splice(0)) await journal.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'journal-test-'));
  dirs.push(dir);
  return join(dir, 'bills.journal');
}

function open(path: string, options?: Parameters<typeof createFileJournal>[1]): FileJournal {
  const journal = createFileJournal(path, options);
  journals.push(journal);
  return journal;
}

const body = (id: string) => JSON.stringify({ supply_type: 'Outward', doc: id });
const intent = (docHashId: string, owner = 'me') => ({
  baseUrl: BASE,
  docHashId,
  owner,
  body: body(docHashId),
  bodyHash: journalBodyHash(body(docHashId)),
  keyHash: journalKeyHash('secret-key'),
  inFlightMs: 15_000,
});

describe('createFileJournal', () => {
  it('records an intent, then its outcome, and reads both back after a reopen; never the key', async () => {
    const path = scratch();
    const journal = open(path);
    const doc = { baseUrl: BASE, docHashId: 'doc-1' };
    const claim = await journal.claim(doc, 'me', 60_000);
    expect(claim).toMatchObject({ claimed: true, record: undefined });
    const sent = await journal.recordIntent(intent('doc-1'));
    expect(sent).toMatchObject({ status: 'sent-maybe', body: body('doc-1'), keyHash: journalKeyHash('secret-key') });
    expect(sent.inFlightUntil - sent.sentAt).toBe(15_000);
    expect(await journal.pending()).toEqual([sent]);
    const result = {
      outcome: 'generated',
      message: 'E-way bill 123456789012 generated',
      ewayBillNumber: '123456789012',
    } as const;
    const done = await journal.recordOutcome(doc, sent.attempt, { status: 'generated', result });
    expect(done).toMatchObject({ status: 'generated', result, body: undefined, bodyHash: sent.bodyHash });
    await journal.release(doc, 'me');
    await journal.close();

    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('secret-key');
    const again = open(path);
    expect(await again.get(doc)).toEqual(done);
    expect(await again.pending()).toEqual([]);
  });

  it('keeps a claim to its owner until its lease runs out, and refuses an intent without the claim', async () => {
    const journal = open(scratch());
    const doc = { baseUrl: BASE, docHashId: 'doc-2' };
    expect(await journal.claim(doc, 'a', 60_000)).toMatchObject({ claimed: true });
    expect(await journal.claim(doc, 'b', 60_000)).toMatchObject({ claimed: false, owner: 'a' });
    await expect(journal.recordIntent(intent('doc-2', 'b'))).rejects.toBeInstanceOf(JournalClaimLostError);
    await journal.release(doc, 'b'); // not b's: kept
    expect(await journal.claim(doc, 'b', 60_000)).toMatchObject({ claimed: false, owner: 'a' });
    await journal.release(doc, 'a');
    expect(await journal.claim(doc, 'b', 1)).toMatchObject({ claimed: true });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await journal.claim(doc, 'c', 60_000)).toMatchObject({ claimed: true });
    await expect(journal.recordIntent(intent('doc-2', 'b'))).rejects.toBeInstanceOf(JournalClaimLostError);
  });

  it('forgets an attempt that was never sent, putting back what was there before', async () => {
    const journal = open(scratch());
    const doc = { baseUrl: BASE, docHashId: 'doc-3' };
    await journal.claim(doc, 'me', 60_000);
    const first = await journal.recordIntent(intent('doc-3'));
    expect(await journal.recordOutcome(doc, first.attempt, { status: 'not-sent' })).toBeUndefined();
    expect(await journal.get(doc)).toBeUndefined();

    const maybe = await journal.recordIntent(intent('doc-3'));
    const refused = await journal.recordOutcome(doc, maybe.attempt, {
      status: 'refused',
      error: { name: 'PortalError', code: 'PORTAL_ERROR', portalCode: 238 },
    });
    expect(refused).toMatchObject({ status: 'refused', error: { portalCode: 238 } });
    const retry = await journal.recordIntent(intent('doc-3'));
    // A late answer of a replaced attempt changes nothing.
    expect(await journal.recordOutcome(doc, maybe.attempt, { status: 'not-sent' })).toEqual(retry);
    expect(await journal.recordOutcome(doc, retry.attempt, { status: 'not-sent' })).toEqual(refused);
  });

  it('skips a torn last line and cuts it off, so the next line never joins it', async () => {
    const path = scratch();
    const journal = open(path);
    const doc = { baseUrl: BASE, docHashId: 'doc-4' };
    await journal.claim(doc, 'me', 60_000);
    const kept = await journal.recordIntent(intent('doc-4'));
    await journal.close();
    writeFileSync(path, `${readFileSync(path, 'utf8')}{"t":"s","r":{"baseU`);
    const again = open(path);
    expect(await again.get(doc)).toEqual(kept);
    expect(again.stats().skippedLines).toBe(1);
    const other = { baseUrl: BASE, docHashId: 'doc-5' };
    await again.claim(other, 'me', 60_000);
    const added = await again.recordIntent(intent('doc-5'));
    await again.close();
    const third = open(path);
    expect(await third.get(other)).toEqual(added);
    expect(await third.get(doc)).toEqual(kept);
    // The torn line was cut off when the file was opened: it can never be completed and read.
    expect(third.stats().skippedLines).toBe(0);
    for (const line of readFileSync(path, 'utf8').split('\n').slice(0, -1)) expect(line).toMatch(/\t[0-9a-f]{8}$/);
  });

  it('compacts away known outcomes older than maxAgeMs, never an unknown one, and the file holds what it kept', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-01T00:00:00Z'));
    const path = scratch();
    const journal = open(path);
    const generated = { status: 'generated', result: { outcome: 'generated', message: 'ok' } } as const;
    const refused = { status: 'refused', error: { code: 'PORTAL_ERROR', portalCode: 238 } } as const;
    async function send(id: string, outcome?: typeof generated | typeof refused) {
      const doc = { baseUrl: BASE, docHashId: id };
      await journal.claim(doc, 'me', 60_000);
      const sent = await journal.recordIntent(intent(id));
      if (outcome) await journal.recordOutcome(doc, sent.attempt, outcome);
      await journal.release(doc, 'me');
    }
    await send('old-generated', generated);
    await send('old-refused', refused);
    await send('old-pending');
    vi.setSystemTime(new Date('2026-11-08T00:00:01Z')); // 7 days and a second later
    await send('new-generated', generated);
    expect(await journal.compact()).toEqual({ dropped: 2, kept: 2 });
    await journal.close();
    const again = open(path);
    expect(await again.get({ baseUrl: BASE, docHashId: 'old-generated' })).toBeUndefined();
    expect(await again.get({ baseUrl: BASE, docHashId: 'old-refused' })).toBeUndefined();
    expect(await again.pending()).toMatchObject([{ docHashId: 'old-pending', body: body('old-pending') }]);
    expect(await again.get({ baseUrl: BASE, docHashId: 'new-generated' })).toMatchObject({ status: 'generated' });
    // maxAgeMs 0 drops every known outcome; the unknown one stays, whatever its age.
    vi.setSystemTime(new Date('2026-11-08T00:00:02Z'));
    expect(await again.compact({ maxAgeMs: 0 })).toEqual({ dropped: 1, kept: 1 });
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(2); // the header and the pending document
  });

  it('compacts by itself as the file grows, so it stays within about twice what it must hold', async () => {
    const path = scratch();
    const journal = open(path, { compactAtBytes: 8192 });
    let written = 0;
    let largest = 0;
    for (let i = 0; i < 300; i++) {
      const doc = { baseUrl: BASE, docHashId: `doc-${i % 20}` };
      await journal.claim(doc, 'me', 60_000);
      const sent = await journal.recordIntent(intent(doc.docHashId));
      await journal.recordOutcome(doc, sent.attempt, { status: 'not-sent' });
      written += 2;
      largest = Math.max(largest, journal.stats().bytes);
    }
    // 20 documents, rewritten 600 times: without compaction the file would hold 600 lines.
    expect(written).toBe(600);
    expect(largest).toBeLessThanOrEqual(8192 + 1024);
    expect(journal.stats().documents).toBe(0);
    await journal.close();
    expect(readFileSync(path, 'utf8').split('\n').length).toBeLessThan(60);
  });
});
