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

describe('createRedisRateLimiter across three real processes', () => {
  it('no two requests of one key arrive less than 1000 ms apart (default options)', async () => {
    const server = await startCountingServer();
    const apiKey = freshKey('redis-processes');
    const sends: Send[] = [];
    try {
      const runs = ['a', 'b', 'c'].map(async (name) => {
        const process_ = spawn(process.execPath, [child.file], {
          env: {
            ...process.env,
            REDIS_PORT: String(redis.port),
            BASE_URL: server.baseUrl,
            API_KEY: apiKey,
            COUNT: '3',
            NAME: name,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        process_.stdout?.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        let stderr = '';
        process_.stderr?.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        const timer = setTimeout(() => process_.kill('SIGKILL'), 60_000);
        const [code] = await once(process_, 'exit');
        clearTimeout(timer);
        expect(code, stderr).toBe(0);
        sends.push(...(JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') as Send[]));
      });
      await Promise.all(runs);
      expect(server.arrivals).toHaveLength(9);
      expect(new Set(server.ids.map((id) => id.split('-')[0])).size).toBe(3);
      // The processes' send times (Date.now() when each handed a request to fetch) are at least 1000 ms apart, and no
      // request arrived before it was sent. Without the limiter, three processes would send within a few ms of each
      // other. The gaps between arrivals are not bounded: a late stamp shrinks the next gap whatever the SDK did.
      expectSpacedSends(sends, server, 1000);
    } finally {
      await server.close();
    }
  }, 120_000);
});
