import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { journalBodyHash } from 'invoicing-service-sdk/journal';
import { createRedisJournal, JournalClaimLostError, type RedisLike } from 'invoicing-service-sdk/redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildEntry } from '../cli/cli-process.js';
import { runOnFakeClock, useFakeClock } from '../helpers/fake-clock.js';
import { LIBRARIES } from '../redis/clients.js';
import { startRedis, type TestRedis } from '../redis/redis-server.js';

const BASE = 'https://service.test/api/partner';
let redis: TestRedis;
let counter = 0;
const prefix = () => `journal-test-${process.pid}-${++counter}:`;
const body = (id: string) => JSON.stringify({ doc: id });
const intent = (docHashId: string, owner: string) => ({
  baseUrl: BASE,
  docHashId,
  owner,
  body: body(docHashId),
  bodyHash: journalBodyHash(body(docHashId)),
  keyHash: 'a1b2c3d4e5f6',
  inFlightMs: 15_000,
});
const quiet = { warn: () => {} };

/**
 * The client, except that the answers of the journal's `intent` op reach the journal 2 s after Redis sent them (Redis
 * applies the intent at once): an intent whose answer comes after the journal's deadline. `busy()` says whether a
 * command is still on its way to or from Redis (the intent's answer held on purpose is not): the test's fake clock
 * stands still then, so only the held answer can miss the deadline, however slowly a loaded Redis answers the rest.
 */
function lateIntents(redis: RedisLike): { redis: RedisLike; busy(): boolean } {
  let outstanding = 0;
  const opOf = (name: string | symbol, args: unknown[]) => {
    if (typeof args[1] === 'number') return args[3]; // ioredis: evalsha(sha, numKeys, key, op, ...)
    if (name === 'evalSha' || name === 'eval') return (args[1] as { arguments?: string[] } | undefined)?.arguments?.[0];
    return undefined;
  };
  const proxy = new Proxy(redis as object, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const answer = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(answer instanceof Promise)) return answer;
        outstanding += 1;
        const answered = answer.finally(() => {
          outstanding -= 1;
        });
        if (opOf(name, args) !== 'intent') return answered;
        return answered.then((reply) => new Promise((resolve) => setTimeout(() => resolve(reply), 2000)));
      };
    },
  }) as RedisLike;
  return { redis: proxy, busy: () => outstanding > 0 };
}

/** Calls `check` until it returns a value (bounded): for what Redis decides on its own clock (a lease, a TTL). */
async function until<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

beforeAll(async () => {
  redis = await startRedis();
}, 300_000);
afterAll(() => redis?.stop());

describe.each(LIBRARIES)('createRedisJournal with $name', (library) => {
  it('claims, records an intent and its outcome, and keeps the pending record without expiry, the known one with it', async () => {
    const client = await library.connect(redis.port);
    try {
      const mine = prefix();
      const journal = createRedisJournal({ redis: client.redis, prefix: mine, maxAgeMs: 3_600_000, logger: quiet });
      const doc = { baseUrl: BASE, docHashId: 'doc-1' };
      const claim = await journal.claim(doc, 'a', 60_000);
      expect(claim).toMatchObject({ claimed: true, record: undefined });
      expect(claim.expiresAt - claim.now).toBe(60_000);
      expect(await journal.claim(doc, 'b', 60_000)).toMatchObject({ claimed: false, owner: 'a' });
      await expect(journal.recordIntent(intent('doc-1', 'b'))).rejects.toBeInstanceOf(JournalClaimLostError);

      const sent = await journal.recordIntent(intent('doc-1', 'a'));
      expect(sent).toMatchObject({
        status: 'sent-maybe',
        body: body('doc-1'),
        keyHash: 'a1b2c3d4e5f6',
        docHashId: 'doc-1',
      });
      expect(sent.inFlightUntil - sent.sentAt).toBe(15_000);
      expect(await journal.get(doc)).toEqual(sent);
      expect(await journal.pending()).toEqual([sent]);
      expect(await journal.pending({ baseUrl: 'https://elsewhere.test' })).toEqual([]);
      const [key] = (await client.command(['KEYS', `${mine}{*}`])) as string[];
      expect(Number(await client.command(['PTTL', key ?? '']))).toBe(-1);

      const result = {
        outcome: 'generated',
        message: 'E-way bill 123456789012 generated',
        ewayBillNumber: '123456789012',
      } as const;
      const done = await journal.recordOutcome(doc, sent.attempt, { status: 'generated', result });
      expect(done).toMatchObject({ status: 'generated', result, body: undefined, bodyHash: sent.bodyHash });
      expect(await journal.pending()).toEqual([]);
      const ttl = Number(await client.command(['PTTL', key ?? '']));
      expect(ttl).toBeGreaterThan(3_500_000);
      expect(ttl).toBeLessThanOrEqual(3_600_000);
      await journal.release(doc, 'a');
      expect(await journal.claim(doc, 'b', 60_000)).toMatchObject({ claimed: true, record: done });
    } finally {
      await client.close();
    }
  });

  it('puts back the record before an attempt that was never sent, and ignores the late answer of a replaced attempt', async () => {
    const client = await library.connect(redis.port);
    try {
      const journal = createRedisJournal({ redis: client.redis, prefix: prefix(), logger: quiet });
      const doc = { baseUrl: BASE, docHashId: 'doc-2' };
      await journal.claim(doc, 'a', 60_000);
      const first = await journal.recordIntent(intent('doc-2', 'a'));
      expect(await journal.recordOutcome(doc, first.attempt, { status: 'not-sent' })).toBeUndefined();
      expect(await journal.get(doc)).toBeUndefined();

      const maybe = await journal.recordIntent(intent('doc-2', 'a'));
      const error = { name: 'PortalError', code: 'PORTAL_ERROR', portalCode: 238, issues: [] };
      const refused = await journal.recordOutcome(doc, maybe.attempt, { status: 'refused', error });
      expect(refused).toMatchObject({ status: 'refused', error, body: undefined });
      const retry = await journal.recordIntent(intent('doc-2', 'a'));
      expect(await journal.recordOutcome(doc, maybe.attempt, { status: 'not-sent' })).toEqual(retry);
      expect(await journal.recordOutcome(doc, retry.attempt, { status: 'not-sent' })).toEqual(refused);
      expect(await journal.pending()).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('lets a lease run out, so another owner takes the document, and the first can no longer record an intent', async () => {
    const client = await library.connect(redis.port);
    try {
      const journal = createRedisJournal({ redis: client.redis, prefix: prefix(), logger: quiet });
      const doc = { baseUrl: BASE, docHashId: 'doc-3' };
      expect(await journal.claim(doc, 'dead', 30)).toMatchObject({ claimed: true });
      const taken = await until(async () => {
        const claim = await journal.claim(doc, 'alive', 60_000);
        return claim.claimed ? claim : undefined;
      }, 'the lease to run out');
      expect(taken.now).toBeGreaterThanOrEqual(taken.expiresAt - 60_000);
      await expect(journal.recordIntent(intent('doc-3', 'dead'))).rejects.toBeInstanceOf(JournalClaimLostError);
      await expect(journal.recordIntent(intent('doc-3', 'alive'))).resolves.toMatchObject({ status: 'sent-maybe' });
      // The dead owner's release leaves the live claim alone.
      await journal.release(doc, 'dead');
      expect(await journal.claim(doc, 'third', 60_000)).toMatchObject({ claimed: false, owner: 'alive' });
    } finally {
      await client.close();
    }
  });

  it('undoes an intent whose answer came after its deadline: nothing was sent, so the document is not left pending', async () => {
    const client = await library.connect(redis.port);
    try {
      const late = lateIntents(client.redis);
      const journal = createRedisJournal({ redis: late.redis, prefix: prefix(), timeout: 1000, logger: quiet });
      const doc = { baseUrl: BASE, docHashId: 'doc-late' };
      // The fake clock (the journal's deadline and the 2 s hold) moves only while no command is on its way.
      useFakeClock();
      await runOnFakeClock(journal.claim(doc, 'me', 60_000), 30_000, { holdWhile: late.busy });
      const recorded = runOnFakeClock(journal.recordIntent(intent('doc-late', 'me')), 30_000, { holdWhile: late.busy });
      await expect(recorded).rejects.toMatchObject({ name: 'JournalError', mayHaveSucceeded: false });
      // One connection answers in order: this read comes after the intent Redis applied, and after what followed it.
      expect(await journal.get(doc)).toBeUndefined();
      expect(await journal.pending()).toEqual([]);
    } finally {
      vi.useRealTimers();
      await client.close();
    }
  });

  it('compacts: known outcomes expire after maxAgeMs, unknown ones never, and the sweep keeps their index entries', async () => {
    const client = await library.connect(redis.port);
    try {
      const journal = createRedisJournal({ redis: client.redis, prefix: prefix(), maxAgeMs: 50, logger: quiet });
      const send = async (id: string) => {
        const doc = { baseUrl: BASE, docHashId: id };
        await journal.claim(doc, 'me', 60_000);
        const sent = await journal.recordIntent(intent(id, 'me'));
        await journal.release(doc, 'me');
        return { doc, sent };
      };
      const generated = await send('generated');
      const refused = await send('refused');
      const pending = await send('pending');
      await journal.recordOutcome(generated.doc, generated.sent.attempt, {
        status: 'generated',
        result: { outcome: 'generated', message: 'ok' },
      });
      await journal.recordOutcome(refused.doc, refused.sent.attempt, { status: 'refused', error: { code: 'X' } });
      await until(
        async () => ((await journal.get(generated.doc)) ? undefined : true),
        'the generated record to expire',
      );
      await until(async () => ((await journal.get(refused.doc)) ? undefined : true), 'the refused record to expire');
      expect(await journal.compact()).toEqual({ dropped: 0, kept: 1 });
      expect(await journal.get(pending.doc)).toEqual(pending.sent);
      expect(await journal.pending()).toEqual([pending.sent]);
      await expect(journal.compact({ maxAgeMs: 1 })).rejects.toThrow(/set maxAgeMs on createRedisJournal/);
    } finally {
      await client.close();
    }
  });
});

/** Resolves with the process's stdout once it printed `line` (or exited). */
function printed(child: ChildProcess, line: string): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.split('\n').includes(line)) done();
    };
    const done = () => {
      child.stdout?.off('data', onData);
      child.off('exit', done);
      resolve(text);
    };
    child.stdout?.on('data', onData);
    child.once('exit', done);
  });
}

describe('the Redis journal shared by processes', () => {
  let built: Awaited<ReturnType<typeof buildEntry>>;
  beforeAll(async () => {
    built = await buildEntry('redis-journal-child', 'test/journal/redis-journal-child.ts');
  }, 120_000);
  afterAll(() => built?.remove());

  it('gives each document exactly one owner when four processes (ioredis 5, 6, node-redis 4, 5) claim them all at once', async () => {
    const mine = prefix();
    const COUNT = 200;
    const children = ['ioredis5', 'ioredis6', 'redis4', 'redis5'].map((library, i) =>
      spawn(process.execPath, [built.file], {
        env: {
          ...process.env,
          REDIS_PORT: String(redis.port),
          LIBRARY: library,
          COUNT: String(COUNT),
          PREFIX: mine,
          NAME: `p${i}`,
        },
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    const exits = children.map((child) => once(child, 'exit'));
    const ready = await Promise.all(children.map((child) => printed(child, 'ready')));
    expect(ready.every((text) => text === 'ready\n')).toBe(true);
    // All four start claiming at once.
    const outputs = children.map((child) => {
      let text = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      return () => text;
    });
    for (const child of children) child.stdin?.end('go\n');
    const codes = await Promise.all(exits);
    expect(codes.map(([code]) => code)).toEqual([0, 0, 0, 0]);

    const owners = new Map<string, string[]>();
    for (const output of outputs) {
      const { owner, owned } = JSON.parse(output().trim()) as { owner: string; owned: string[] };
      for (const id of owned) owners.set(id, [...(owners.get(id) ?? []), owner]);
    }
    expect(owners.size).toBe(COUNT);
    expect([...owners.values()].filter((list) => list.length !== 1)).toEqual([]);
    const client = await LIBRARIES[0]?.connect(redis.port);
    try {
      const journal = createRedisJournal({ redis: client?.redis as never, prefix: mine, logger: quiet });
      for (const [docHashId, [owner]] of owners) {
        const record = await journal.get({ baseUrl: BASE, docHashId });
        expect(record).toMatchObject({ status: 'generated', result: { message: `generated by ${owner}` } });
      }
      expect(await journal.pending()).toEqual([]);
    } finally {
      await client?.close();
    }
  }, 120_000);
});

describe('the Redis journal on a Redis that evicts', () => {
  it('warns once through logger.warn, naming the policy and the fix', async () => {
    const library = LIBRARIES[0];
    const client = await library?.connect(redis.port);
    if (!client) throw new Error('no client library');
    try {
      await client.command(['CONFIG', 'SET', 'maxmemory', '100mb']);
      await client.command(['CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru']);
      const warnings: string[] = [];
      let warned: () => void = () => {};
      const got = new Promise<void>((resolve) => {
        warned = resolve;
      });
      const journal = createRedisJournal({
        redis: client.redis,
        prefix: prefix(),
        logger: {
          warn: (message) => {
            warnings.push(message);
            warned();
          },
        },
      });
      await journal.get({ baseUrl: BASE, docHashId: 'x' });
      await journal.get({ baseUrl: BASE, docHashId: 'y' });
      await got;
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/the Redis journal: Redis evicts keys under maxmemory-policy allkeys-lru/);
      expect(warnings[0]).toMatch(/the journal may forget a document it sent\. Set maxmemory-policy noeviction/);
    } finally {
      await client.command(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
      await client.command(['CONFIG', 'SET', 'maxmemory', '0']);
      await client.close();
    }
  });
});
