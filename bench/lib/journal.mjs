// `npm run bench -- journal` (issue 31): what the journal costs per document (claim, intent, outcome, release: what the
// client will do around each e-way bill request), for the file journal (two fsyncs per document) and the Redis journal
// (ioredis 5, a local redis-server without persistence, then with AOF `appendfsync always`); and the file journal's
// size after BENCH_JOURNAL_DOCS documents (100,000) with the fixture's body, before and after compaction.
// The size run writes on /dev/shm (tmpfs) when there is one: the bytes are the same, and 200,000 fsyncs on a disk
// would take minutes; the cost rows always use the real temporary directory's disk.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { model } from '../workers/fixture.mjs';
import { entryPath, envNumber, fixed, MiB, row, spread, summary } from './common.mjs';
import { freePort, startRedis } from './ports.mjs';

export const title = 'the journal: cost per document (file with fsync, Redis), file size before/after compaction';

const BASE = 'https://service.test/api/partner';
const BODY = JSON.stringify(model);

async function load(subpath) {
  const path = entryPath(subpath);
  if (!path) throw new Error(`dist lacks ${subpath}: run npm run build`);
  return import(pathToFileURL(path).href);
}

/** One document as the client will journal it: claim, intent (synced), outcome, release. */
async function journalOne(journal, hash, docHashId) {
  const document = { baseUrl: BASE, docHashId };
  await journal.claim(document, 'bench', 60_000);
  const sent = await journal.recordIntent({
    ...document,
    owner: 'bench',
    body: BODY,
    bodyHash: hash,
    keyHash: 'a1b2c3d4e5f6',
    inFlightMs: 15_000,
  });
  await journal.recordOutcome(document, sent.attempt, {
    status: 'generated',
    result: { outcome: 'generated', message: `E-way bill ${100000000000 + Number(docHashId.slice(4))} generated` },
  });
  await journal.release(document, 'bench');
}

/** Microseconds per document over `count` documents, in `rounds` rounds (a new prefix or file each). */
async function perDocument(rounds, count, make) {
  const { journalBodyHash } = await load('./journal');
  const hash = journalBodyHash(BODY);
  const figures = [];
  for (let round = 0; round < rounds; round++) {
    const { journal, done } = await make(round);
    const started = performance.now();
    for (let i = 0; i < count; i++) await journalOne(journal, hash, `doc-${i}`);
    figures.push(((performance.now() - started) * 1000) / count);
    await journal.close();
    await done();
  }
  return summary(figures);
}

/**
 * Microseconds per `createEwayBill` through a real ServiceClient whose `fetch` answers at once (no network, no rate
 * limit, no preflight), with the journal `make(round)` gives or none: the difference is what the journal adds per call.
 */
async function clientPerCall(rounds, count, make) {
  const { ServiceClient } = await load('.');
  const answer = JSON.stringify({ success: true, message: 'E-way bill 123456789012 generated' });
  const figures = [];
  for (let round = 0; round < rounds; round++) {
    const journal = make ? await make(round) : undefined;
    const client = new ServiceClient({
      apiKey: `sk_bench_journal_client_${round}`,
      baseUrl: BASE,
      preflight: 'off',
      logLevel: 'off',
      rateLimiter: { acquire: async () => undefined },
      fetch: async () => new Response(answer, { status: 200, headers: { 'content-type': 'application/json' } }),
      journal,
    });
    await client.createEwayBill('warm-up', model);
    const started = performance.now();
    for (let i = 0; i < count; i++) await client.createEwayBill(`doc-${i}`, model);
    figures.push(((performance.now() - started) * 1000) / count);
    await journal?.close();
  }
  return summary(figures);
}

/** A redis-server of its own on a free port, its files in a temporary directory; `extra` sets its persistence. */
async function startJournalRedis(extra) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'journal-bench-redis-'));
  const child = await startRedis(port, ['--dir', dir, ...extra]);
  return {
    port,
    async stop() {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function run() {
  const rounds = envNumber('BENCH_JOURNAL_ROUNDS', 3, 1);
  const count = envNumber('BENCH_JOURNAL_CALLS', 1000, 100);
  const docs = envNumber('BENCH_JOURNAL_DOCS', 100_000, 5000);
  const { createFileJournal } = await load('./journal');
  const { createRedisJournal } = await load('./redis');
  const rows = [];
  const us = (value) => `${fixed(0)(value)} µs`;

  const dir = mkdtempSync(join(tmpdir(), 'journal-bench-'));
  try {
    const file = await perDocument(rounds, count, async (round) => ({
      journal: createFileJournal(join(dir, `cost-${round}.journal`)),
      done: async () => {},
    }));
    rows.push(row(`journal: file, per document (${count} docs, 2 fsyncs each, ${tmpdir()})`, spread(file, us)));
    const plain = await clientPerCall(rounds, count, undefined);
    const journaled = await clientPerCall(rounds, count, (round) =>
      createFileJournal(join(dir, `client-${round}.journal`)),
    );
    rows.push(
      row(
        `journal: client.createEwayBill per call, no journal (${count} calls, fetch answers at once)`,
        spread(plain, us),
      ),
      row(`journal: client.createEwayBill per call, file journal (${count} calls, ${tmpdir()})`, spread(journaled, us)),
    );

    if (spawnSync('redis-server', ['--version']).error) {
      rows.push(row('journal: redis', 'skipped: no redis-server on the PATH'));
    } else {
      const Redis = createRequire(import.meta.url)('ioredis5');
      for (const [name, extra] of [
        ['redis, no persistence', ['--appendonly', 'no']],
        ['redis, AOF appendfsync always', ['--appendonly', 'yes', '--appendfsync', 'always']],
      ]) {
        const server = await startJournalRedis(extra);
        const redis = new Redis({ host: '127.0.0.1', port: server.port });
        try {
          const figure = await perDocument(rounds, count, async (round) => ({
            journal: createRedisJournal({ redis, prefix: `bench-${round}:`, logger: { warn: () => {} } }),
            done: async () => {},
          }));
          const viaClient = await clientPerCall(rounds, count, (round) =>
            createRedisJournal({ redis, prefix: `bench-client-${round}:`, logger: { warn: () => {} } }),
          );
          rows.push(
            row(`journal: ${name}, per document (${count} docs, ioredis 5, 6 round trips)`, spread(figure, us)),
            row(`journal: client.createEwayBill per call, ${name} (${count} calls)`, spread(viaClient, us)),
          );
        } finally {
          redis.disconnect();
          await server.stop();
        }
      }
    }

    const sizeDir = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/journal-bench-') : dir;
    try {
      const path = join(sizeDir, 'size.journal');
      const journal = createFileJournal(path, { compactAtBytes: false });
      const { journalBodyHash } = await load('./journal');
      const hash = journalBodyHash(BODY);
      const started = performance.now();
      for (let i = 0; i < docs; i++) await journalOne(journal, hash, `doc-${i}`);
      const writeSeconds = (performance.now() - started) / 1000;
      const before = statSync(path).size;
      const t0 = performance.now();
      const kept = await journal.compact();
      const compactMs = performance.now() - t0;
      const after = statSync(path).size;
      const dropped = await journal.compact({ maxAgeMs: 0 });
      const empty = statSync(path).size;
      await journal.close();
      const mib = (bytes) => `${fixed(1)(MiB(bytes))} MiB`;
      rows.push(
        row(
          `journal: file size after ${docs} docs (body ${BODY.length} B), no compaction`,
          `${mib(before)} (${fixed(0)(before / docs)} B/doc, written in ${fixed(1)(writeSeconds)} s on ${sizeDir === dir ? 'disk' : 'tmpfs'})`,
        ),
        row(
          `journal: after compact(), all ${kept.kept} kept (outcomes known: bodies dropped)`,
          `${mib(after)} (${fixed(0)(after / docs)} B/doc, compaction ${fixed(0)(compactMs)} ms)`,
        ),
        row(`journal: after compact({ maxAgeMs: 0 }) (${dropped.dropped} dropped)`, `${empty} B`),
      );
    } finally {
      if (sizeDir !== dir) rmSync(sizeDir, { recursive: true, force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
