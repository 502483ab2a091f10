/**
 * The Redis clients the subpath works with, by shape: the partner's own client, never a dependency of the SDK.
 * - ioredis 5 and 6 (`Redis` and `Cluster`): `evalsha(sha, numKeys, ...keysAndArgs)` and `eval(...)`;
 * - node-redis 4 and 5 (the `redis` package, `createClient` and `createCluster`): `evalSha(sha, { keys, arguments })`
 *   and `eval(script, { keys, arguments })`;
 * - any other client with `sendCommand(['EVALSHA', ...])` (a node-redis client without the script helpers).
 */
export type RedisLike = IoRedisLike | NodeRedisLike | SendCommandLike;

/** The part of an ioredis client (or Cluster) that is used. */
export interface IoRedisLike {
  evalsha(sha: string, numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  call(command: string, ...args: string[]): Promise<unknown>;
}

/** The part of a node-redis client (or cluster) that is used. */
export interface NodeRedisLike {
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** A client that runs one raw command given as an array of strings. */
export interface SendCommandLike {
  sendCommand(args: string[]): Promise<unknown>;
}

/** Runs a script (by digest, loading it once when Redis does not know it) on one key, with its arguments. */
export type ScriptRunner = (key: string, args: string[]) => Promise<unknown>;

const isFunction = (value: unknown): value is (...args: never[]) => unknown => typeof value === 'function';

/** Which kind of client `redis` is, or `undefined` when it is none of them. */
export function redisClientKind(redis: unknown): 'ioredis' | 'node-redis' | 'send-command' | undefined {
  if (typeof redis !== 'object' || redis === null) return undefined;
  const client = redis as Record<string, unknown>;
  if (isFunction(client.evalsha) && isFunction(client.eval) && isFunction(client.call)) return 'ioredis';
  if (isFunction(client.evalSha) && isFunction(client.eval)) return 'node-redis';
  if (isFunction(client.sendCommand)) return 'send-command';
  return undefined;
}

const isNoScript = (error: unknown) => error instanceof Error && /NOSCRIPT/i.test(error.message);

/**
 * A {@link ScriptRunner} for `redis`: `EVALSHA` first (one round trip), `EVAL` when Redis answers `NOSCRIPT`
 * (after a restart or a `SCRIPT FLUSH`), which also loads the script for the next calls.
 * @throws {TypeError} when `redis` is not a client of a known shape; `name` is the option's name in the message.
 */
export function scriptRunner(redis: unknown, script: string, sha: string, name: string): ScriptRunner {
  const kind = redisClientKind(redis);
  if (kind === undefined) {
    throw new TypeError(
      `${name} must be an ioredis client (new Redis(...)) or a node-redis client (createClient(...)); got ${redis === null ? 'null' : typeof redis}`,
    );
  }
  const attempt = (byDigest: boolean, key: string, args: string[]): Promise<unknown> => {
    if (kind === 'ioredis') {
      const client = redis as IoRedisLike;
      return byDigest ? client.evalsha(sha, 1, key, ...args) : client.eval(script, 1, key, ...args);
    }
    if (kind === 'node-redis') {
      const client = redis as NodeRedisLike;
      const options = { keys: [key], arguments: args };
      return byDigest ? client.evalSha(sha, options) : client.eval(script, options);
    }
    const client = redis as SendCommandLike;
    return client.sendCommand(byDigest ? ['EVALSHA', sha, '1', key, ...args] : ['EVAL', script, '1', key, ...args]);
  };
  // A client may throw instead of rejecting (a closed node-redis client does): make it one rejection.
  const call = (byDigest: boolean, key: string, args: string[]) =>
    new Promise<unknown>((resolve) => resolve(attempt(byDigest, key, args)));
  return (key, args) =>
    call(true, key, args).catch((error: unknown) => {
      if (isNoScript(error)) return call(false, key, args);
      throw error;
    });
}

/** Why a Redis call was abandoned at its deadline. */
export class RedisDeadlineError extends Error {
  override name = 'RedisDeadlineError';
}

/**
 * `call()` raced against its own deadline: rejects with {@link RedisDeadlineError} after `ms`, so a Redis that
 * accepts connections and never answers cannot hang the caller. The timer is cleared when the call settles, and a
 * late rejection of the abandoned call is observed (never unhandled).
 */
export function withDeadline<T>(call: () => Promise<T>, ms: number, what: string): Promise<T> {
  let pending: Promise<T>;
  try {
    pending = call();
  } catch (error) {
    pending = Promise.reject(error);
  }
  pending.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    // After a stalled event loop, timers run before pending I/O is read: setImmediate lets an answer that is already
    // in the socket settle the call first, so a busy process does not mistake its own stall for a Redis that hangs.
    const expire = () => reject(new RedisDeadlineError(`Redis did not answer ${what} within ${ms} ms`));
    timer = setTimeout(() => setImmediate(expire), ms);
  });
  return Promise.race([pending, deadline]).finally(() => clearTimeout(timer));
}
