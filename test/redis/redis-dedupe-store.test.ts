import { createRedisDedupeStore } from 'invoicing-service-sdk/redis';
import { createWebhookHandler } from 'invoicing-service-sdk/webhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DOCUMENT_EVENT, deliveryRequest, SECRET, withId } from '../webhooks/fixtures.js';
import { LIBRARIES } from './clients.js';
import { startHungServer, startRedis, type TestRedis } from './redis-server.js';

let redis: TestRedis;

beforeAll(async () => {
  redis = await startRedis();
}, 300_000);
afterAll(() => redis?.stop());

let counter = 0;
const eventId = () => `evt_${process.pid}_${++counter}_${Math.random().toString(36).slice(2)}`;

describe.each(LIBRARIES)('createRedisDedupeStore with $name', (library) => {
  it('claims once, keeps a claim to its owner, and records the event as processed for the replay window', async () => {
    const client = await library.connect(redis.port);
    try {
      const prefix = `dedupe-test-${counter}:`;
      const store = createRedisDedupeStore({ redis: client.redis, prefix });
      const id = eventId();
      expect(await store.claim(id, 5000, 'token-a')).toBe('claimed');
      expect(await store.claim(id, 5000, 'token-b')).toBe('processing');
      await store.commit(id, 60_000, 'token-b'); // not the owner: nothing changes
      await store.release(id, 'token-b');
      expect(await store.claim(id, 5000, 'token-c')).toBe('processing');
      await store.commit(id, 60_000, 'token-a');
      expect(await store.claim(id, 5000, 'token-d')).toBe('processed');
      await store.release(id, 'token-a'); // a processed record is kept
      expect(await store.claim(id, 5000, 'token-e')).toBe('processed');

      const [key, ...others] = (await client.command(['KEYS', `${prefix}*`])) as string[];
      expect(others).toHaveLength(0);
      expect(key).toMatch(new RegExp(`^${prefix}[0-9a-f]{64}$`));
      const ttl = Number(await client.command(['PTTL', key ?? '']));
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);

      const other = eventId();
      expect(await store.claim(other, 5000, 'token-f')).toBe('claimed');
      await store.release(other, 'token-f');
      expect(await store.claim(other, 5000, 'token-g')).toBe('claimed');
    } finally {
      await client.close();
    }
  });

  it('lets a lease run out, so a claim of a process that died does not block the event', async () => {
    const client = await library.connect(redis.port);
    try {
      const store = createRedisDedupeStore({ redis: client.redis });
      const id = eventId();
      expect(await store.claim(id, 50, 'dead')).toBe('claimed');
      // Until the lease runs out (on Redis's clock) a claim finds the event in progress; then it is claimed. Asking
      // changes nothing while it is held, so the test asks until it is (the timeout only guards against a hang).
      await vi.waitFor(async () => expect(await store.claim(id, 5000, 'alive')).toBe('claimed'), {
        timeout: 10_000,
        interval: 10,
      });
      await store.commit(id, 60_000, 'dead'); // the dead one's late commit leaves the live claim alone
      expect(await store.claim(id, 5000, 'third')).toBe('processing');
    } finally {
      await client.close();
    }
  });

  it('runs onEvent once when two processes receive the same event at the same time', async () => {
    const clients = await Promise.all([library.connect(redis.port), library.connect(redis.port)]);
    try {
      let runs = 0;
      const handlers = clients.map((client) =>
        createWebhookHandler({
          secret: SECRET,
          dedupe: createRedisDedupeStore({ redis: client.redis }),
          onEvent: async () => {
            runs += 1;
            await new Promise((resolve) => setTimeout(resolve, 100));
          },
          onError: () => {},
        }),
      );
      const event = withId(DOCUMENT_EVENT, eventId());
      const answers = await Promise.all(handlers.map((handler) => handler(deliveryRequest(event))));
      expect(runs).toBe(1);
      expect(answers.map((answer) => answer.status).toSorted()).toEqual([200, 409]);
      const replay = await handlers[1]?.(deliveryRequest(event));
      expect(replay?.status).toBe(200);
      expect(runs).toBe(1);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it('rejects at its deadline when Redis hangs, so the handler answers 500 and the service redelivers', async () => {
    const hung = await startHungServer();
    const client = await library.connect(hung.port, false);
    try {
      let runs = 0;
      const store = createRedisDedupeStore({ redis: client.redis, timeout: 200 });
      await expect(store.claim(eventId(), 5000, 'token')).rejects.toThrow(/did not answer .* within 200 ms/);
      const handler = createWebhookHandler({
        secret: SECRET,
        dedupe: store,
        onEvent: () => {
          runs += 1;
        },
        onError: () => {},
      });
      const answer = await handler(deliveryRequest(withId(DOCUMENT_EVENT, eventId())));
      expect(answer.status).toBe(500);
      expect(runs).toBe(0);
    } finally {
      await client.close();
      await hung.close();
    }
  });
});

describe.each(LIBRARIES)('a claim abandoned at its deadline, with $name', (library) => {
  let stalling: TestRedis;
  beforeAll(async () => {
    stalling = await startRedis();
  }, 300_000);
  afterAll(() => stalling?.stop());

  it('is released once Redis wakes up, so the redelivery is processed instead of answered 409 for the lease', async () => {
    const client = await library.connect(stalling.port);
    const admin = await library.connect(stalling.port);
    try {
      let runs = 0;
      const handler = createWebhookHandler({
        secret: SECRET,
        dedupe: createRedisDedupeStore({ redis: client.redis, timeout: 300 }),
        onEvent: () => {
          runs += 1;
        },
        onError: () => {},
      });
      const event = withId(DOCUMENT_EVENT, eventId());
      // Redis stalls (its process stopped, so it answers nothing until thawed, however long the claim takes to reach
      // it): the claim misses its 300 ms deadline, then runs when Redis wakes up.
      await stalling.freeze();
      try {
        expect((await handler(deliveryRequest(event))).status).toBe(500);
      } finally {
        stalling.thaw();
      }
      // Redis is awake again once it answers.
      await admin.command(['PING']);
      // The service's redelivery (the lease is 2 minutes): it is redelivered until it is taken, as the service does;
      // the timeout only guards against a hang.
      await vi.waitFor(async () => expect((await handler(deliveryRequest(event))).status).toBe(200), {
        timeout: 10_000,
        interval: 50,
      });
      expect(runs).toBe(1);
      expect((await handler(deliveryRequest(event))).status).toBe(200); // a duplicate
      expect(runs).toBe(1);
    } finally {
      await admin.close();
      await client.close();
    }
  });
});

describe('createRedisDedupeStore options', () => {
  it('names a bad option', () => {
    expect(() => createRedisDedupeStore({ redis: null as never })).toThrow(/redis must be an ioredis client/);
    expect(() => createRedisDedupeStore({ redis: { sendCommand: async () => 'ok' }, timeout: -1 })).toThrow(
      /timeout must be a finite number >= 1/,
    );
  });
});
