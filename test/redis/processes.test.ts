// The Redis rate limiter across real processes: three Node processes, each with its own ServiceClient and Redis
// connection, call one key at once; a stand-in for the service on 127.0.0.1 stamps each arrival.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEntry } from '../cli/cli-process.js';
import { freshKey } from '../helpers/model.js';
import { gaps, startCountingServer } from './counting-server.js';
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

/** Runs one child process to its end; resolves with the send times it printed. */
async function runChild(env: Record<string, string>): Promise<number[]> {
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
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') as number[];
}

describe('createRedisRateLimiter across three real processes', () => {
  it('no two requests of one key arrive less than 1000 ms apart (default options)', async () => {
    const server = await startCountingServer();
    const apiKey = freshKey('redis-processes');
    try {
      const runs = ['a', 'b', 'c'].map((name) =>
        runChild({ BASE_URL: server.baseUrl, API_KEY: apiKey, COUNT: '3', NAME: name }),
      );
      await Promise.all(runs);
      expect(server.arrivals).toHaveLength(9);
      expect(new Set(server.ids.map((id) => id.split('-')[0])).size).toBe(3);
      // The starts are 1025 ms apart on Redis's clock; the stamps (this process's event loop, on a 2-core machine busy
      // with the rest of the suite) can lag by tens of ms, so 950 ms is the bound. Without the limiter, three processes
      // would send within a few ms of each other.
      for (const gap of gaps(server.arrivals)) expect(gap).toBeGreaterThanOrEqual(950);
    } finally {
      await server.close();
    }
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
        const sends = [...a, ...b].sort((x, y) => x - y);
        for (const gap of gaps(sends)) expect(gap).toBeGreaterThanOrEqual(1000);
      } finally {
        await server.close();
      }
    },
    120_000,
  );
});
