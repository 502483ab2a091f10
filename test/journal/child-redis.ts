// The Redis client of a test child process (built by tsup): the library LIBRARY names (ioredis5, ioredis6, redis4,
// redis5), loaded at run time from node_modules (bundled into ESM, the clients' own `require` calls fail).
import { createRequire } from 'node:module';
import type { RedisLike } from '../../src/redis/index.js';

export async function connectRedis(
  library: string,
  port: number,
): Promise<{ redis: RedisLike; close(): Promise<void> }> {
  const require = createRequire(import.meta.url);
  if (library.startsWith('ioredis')) {
    const Redis = require(library) as new (options: object) => RedisLike & { disconnect(): void };
    const redis = new Redis({ host: '127.0.0.1', port });
    return { redis, close: async () => redis.disconnect() };
  }
  const { createClient } = require(library) as {
    createClient(options: object): RedisLike & { connect(): Promise<unknown>; quit(): Promise<unknown> };
  };
  const client = createClient({ url: `redis://127.0.0.1:${port}` });
  await client.connect();
  return { redis: client, close: async () => void (await client.quit()) };
}
