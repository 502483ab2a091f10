// The Redis rate limiter across real processes: three Node processes, each with its own ServiceClient and Redis
// connection, call one key at once; a stand-in for the service on 127.0.0.1 stamps each arrival.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEntry } from '../cli/cli-process.js';
import { freshKey } from '../helpers/model.js';
import { expectSpacedSends, type Send, startCountingServer } from './counting-server.js';
import { startRedis, type TestRedis } from './redis-server.js';

let redis: TestRedis;
let child: Awaited<ReturnType<typeof buildEntry>>;

beforeAll(async () => {
  [redis, child] = await Promise.all([startRedis(), buildEntry('limiter-child', 'test/redis/limiter-child.ts')]);
}, 300_000);
afterAll(async () => {
  child?.remove();
  await redis?.stop();
});

/** Runs one child process to its end; resolves with the sends it printed (id, Date.now() when handed to fetch). */
async function runChild(env: Record<string, string>): Promise<Send[]> {
  const process_ = spawn(process.execPath, [child.file], {
    env: { ...process.env, REDIS_PORT: String(redis.port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  process_.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  process_.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => process_.kill('SIGKILL'), 60_000);
  const [code] = await once(process_, 'exit');
  clearTimeout(timer);
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') as Send[];
}

/**
 * Runs one child per `envs` (each with the counting server's URL and one fresh key) and stops the server: each child's
 * sends, and the server's records of what arrived.
 */
async function runOnOneKey(prefix: string, envs: Record<string, string>[]) {
  const server = await startCountingServer();
  const apiKey = freshKey(prefix);
  try {
    const runs = await Promise.all(envs.map((env) => runChild({ BASE_URL: server.baseUrl, API_KEY: apiKey, ...env })));
    return { runs, server };
  } finally {
    await server.close();
  }
}

describe('createRedisRateLimiter across three real processes', () => {
  it('no two requests of one key arrive less than 1000 ms apart (default options)', async () => {
    const { runs, server } = await runOnOneKey(
      'redis-processes',
      ['a', 'b', 'c'].map((name) => ({ COUNT: '3', NAME: name })),
    );
    expect(server.arrivals).toHaveLength(9);
    expect(new Set(server.ids.map((id) => id.split('-')[0])).size).toBe(3);
    // The processes' send times (Date.now() when each handed a request to fetch) are at least 1000 ms apart, and no
    // request arrived before it was sent. Without the limiter, three processes would send within a few ms of each
    // other. The gaps between arrivals are not bounded: a late stamp shrinks the next gap whatever the SDK did.
    expectSpacedSends(runs.flat(), server, 1000);
  }, 120_000);
});

describe('createRedisRateLimiter across three real processes with priorities (issue 30)', () => {
  it('a low, a normal and a high process on one key: no two requests start less than 1000 ms apart', async () => {
    // Each process sends its calls one after the other, so the high one's next call is made just after its own
    // request left: it goes to Redis at once (ahead of the low process's waiting call), Redis still spacing it.
    const { runs, server } = await runOnOneKey('redis-priorities', [
      { COUNT: '4', NAME: 'low', PRIORITY: 'low' },
      { COUNT: '3', NAME: 'normal', PRIORITY: 'normal' },
      { COUNT: '3', NAME: 'high', PRIORITY: 'high' },
    ]);
    expect(runs.map((sends) => sends.length)).toEqual([4, 3, 3]);
    expect(server.arrivals).toHaveLength(10);
    expectSpacedSends(runs.flat(), server, 1000);
  }, 120_000);
});

describe('one key, one budget across two real processes (issue 28, item 1)', () => {
  it.each([
    ['one names a rateLimitKey and one names none', 'company-42', ''],
    ['they name two different rateLimitKeys', 'company-42', 'company-43'],
  ])(
    '%s: the key sends at most once a second',
    async (_, first, second) => {
      const server = await startCountingServer();
      const apiKey = freshKey('redis-one-budget');
      try {
        const [a, b] = await Promise.all([
          runChild({ BASE_URL: server.baseUrl, API_KEY: apiKey, COUNT: '3', NAME: 'a', RATE_LIMIT_KEY: first }),
          runChild({ BASE_URL: server.baseUrl, API_KEY: apiKey, COUNT: '3', NAME: 'b', RATE_LIMIT_KEY: second }),
        ]);
        expect(a).toHaveLength(3);
        expect(b).toHaveLength(3);
        // When each process handed a request to fetch: before the fix the two processes held two budgets of the key,
        // and sent tens of ms apart (the audit's minimum gap: 68 ms).
        expectSpacedSends([...a, ...b], server, 1000);
      } finally {
        await server.close();
      }
    },
    120_000,
  );
});
