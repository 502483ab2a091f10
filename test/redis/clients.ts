import type { RedisLike } from 'invoicing-service-sdk/redis';
import IoRedis5 from 'ioredis5';
import IoRedis6 from 'ioredis6';
import * as nodeRedis4 from 'redis4';
import * as nodeRedis5 from 'redis5';

/** A connected client of one library, and how to close it. */
export interface TestClient {
  readonly redis: RedisLike;
  /** Runs a raw command (for the tests' own checks). */
  command(args: string[]): Promise<unknown>;
  close(): Promise<void>;
}

export interface ClientLibrary {
  readonly name: string;
  /** A client of `port` on 127.0.0.1. `wait: false` does not wait for it to be ready (a hung server never is). */
  connect(port: number, wait?: boolean): Promise<TestClient>;
}

/** What the tests use of an ioredis client. */
interface IoClient {
  on(event: 'error', listener: () => void): unknown;
  once(event: 'ready', listener: () => void): unknown;
  connect(): Promise<void>;
  call(command: string, ...args: string[]): Promise<unknown>;
  disconnect(): void;
}

/** What the tests use of a node-redis client. */
interface NodeClient {
  on(event: 'error', listener: () => void): unknown;
  connect(): Promise<unknown>;
  sendCommand(args: string[]): Promise<unknown>;
}

function ioredis(name: string, Redis: new (options: object) => IoClient): ClientLibrary {
  return {
    name,
    async connect(port, wait = true) {
      const redis = new Redis({ port, host: '127.0.0.1', retryStrategy: () => 50, lazyConnect: !wait });
      redis.on('error', () => {});
      if (wait) await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
      else redis.connect().catch(() => {});
      return {
        redis: redis as unknown as RedisLike,
        command: ([command = '', ...args]) => redis.call(command, ...args),
        async close() {
          redis.disconnect();
        },
      };
    },
  };
}

function nodeRedis(name: string, lib: { createClient(options: object): unknown }): ClientLibrary {
  return {
    name,
    async connect(port, wait = true) {
      const client = lib.createClient({
        url: `redis://127.0.0.1:${port}`,
        socket: { reconnectStrategy: () => 50 },
      }) as NodeClient;
      client.on('error', () => {});
      const connecting = client.connect();
      if (wait) await connecting;
      else connecting.catch(() => {});
      return {
        redis: client as unknown as RedisLike,
        command: (args) => client.sendCommand(args),
        async close() {
          const closing = client as unknown as { destroy?: () => void; disconnect: () => Promise<void> };
          if (typeof closing.destroy === 'function') closing.destroy();
          else await closing.disconnect().catch(() => {});
        },
      };
    },
  };
}

/** Every client library and major the subpath supports. */
export const LIBRARIES: readonly ClientLibrary[] = [
  ioredis('ioredis 5', IoRedis5 as unknown as new (options: object) => IoClient),
  ioredis('ioredis 6', IoRedis6 as unknown as new (options: object) => IoClient),
  nodeRedis('node-redis 4', nodeRedis4),
  nodeRedis('node-redis 5', nodeRedis5),
];
