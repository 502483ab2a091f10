// What the Redis rate limiter decided, read from Redis: the script's own replies, and the state it keeps per key (on
// Redis's clock, `TIME`). Tests assert on these instead of timing the limiter with the machine's clock.
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import type { TestClient } from './clients.js';

/** One call of the limiter's script: its op (`acquire`, `start`, `sent`, `release`, `cancel`), ticket and reply. */
export interface ScriptCall {
  readonly op: string;
  readonly ticket: string;
  /** Whether the limiter asked Redis to wait for answers (ARGV `waitForAnswer`). */
  readonly waitForAnswer: boolean;
  reply?: [number, number];
}

/** The state the script keeps for one API key: `ls` is the latest granted start (Redis ms), `fl` the granted slots. */
export interface KeyState {
  readonly ls?: number;
  readonly fl?: Record<string, { s: number }> | unknown[];
  readonly q?: { id: string }[] | Record<string, never>;
}

/**
 * Wraps an ioredis or node-redis client so that every call of the limiter's script is recorded in `calls`, and `after` (when given)
 * runs once each reply is in, before the limiter sees it. `next(predicate)` resolves at the first reply that matches,
 * among those recorded so far or to come: a test waits for that event instead of sleeping.
 */
export function spyScript(
  redis: unknown,
  after?: (call: ScriptCall) => Promise<void> | void,
): { redis: never; calls: ScriptCall[]; next(predicate: (call: ScriptCall) => boolean): Promise<ScriptCall> } {
  const calls: ScriptCall[] = [];
  const waiting = new Set<{ predicate: (call: ScriptCall) => boolean; resolve(call: ScriptCall): void }>();
  const settle = (call: ScriptCall) => {
    for (const waiter of waiting) {
      if (!waiter.predicate(call)) continue;
      waiting.delete(waiter);
      waiter.resolve(call);
    }
  };
  const proxy = new Proxy(redis as object, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof value !== 'function') return value;
      if (property !== 'evalsha' && property !== 'evalSha' && property !== 'eval') return value.bind(target);
      return async (...args: unknown[]) => {
        // ioredis: (script or sha, number of keys, key, ...ARGV); node-redis: (script or sha, { keys, arguments }).
        const argv = typeof args[1] === 'object' ? (args[1] as { arguments: string[] }).arguments : args.slice(3);
        const call: ScriptCall = { op: String(argv[0]), ticket: String(argv[1]), waitForAnswer: argv[4] === '1' };
        calls.push(call);
        const reply = await (value.apply(target, args) as Promise<unknown>);
        call.reply = (reply as unknown[]).map(Number) as [number, number];
        await after?.(call);
        settle(call);
        return reply;
      };
    },
  });
  const next = (predicate: (call: ScriptCall) => boolean) => {
    const seen = calls.find((call) => call.reply !== undefined && predicate(call));
    if (seen) return Promise.resolve(seen);
    return new Promise<ScriptCall>((resolve) => waiting.add({ predicate, resolve }));
  };
  return { redis: proxy as never, calls, next };
}

/** The Redis key the limiter keeps `keyId`'s state under. */
export const stateKey = (keyId: string, prefix = 'invoicing-service-sdk:rate:') =>
  prefix + createHash('sha256').update(keyId).digest('hex');

/** The limiter's state for `keyId`, as the script left it. */
export async function keyState(client: TestClient, keyId: string, prefix?: string): Promise<KeyState> {
  const raw = await client.command(['GET', stateKey(keyId, prefix)]);
  return raw ? (JSON.parse(String(raw)) as KeyState) : {};
}

/** Redis's clock (`TIME`) in milliseconds: the clock the script decides on. */
export async function redisTime(client: TestClient): Promise<number> {
  const [seconds, micros] = (await client.command(['TIME'])) as [string, string];
  return Number(seconds) * 1000 + Number(micros) / 1000;
}

/**
 * The script's runs on the Redis at `port`, in the order Redis ran them (`MONITOR`, on its own connection): each
 * run's op and ticket. Paired with the `calls` of the limiters' {@link spyScript}s (each ticket's runs come in the
 * order its connection sent them), `grants` gives the grants in Redis's order, whatever order their replies reached
 * the clients in. Resolves once Redis monitors.
 */
export async function monitorScript(port: number): Promise<{
  runs: { op: string; ticket: string }[];
  grants(calls: readonly ScriptCall[]): Promise<string[]>;
  stop(): void;
}> {
  const socket = connect(port, '127.0.0.1');
  const runs: { op: string; ticket: string }[] = [];
  const seen = new Set<() => void>();
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\r\n'); end >= 0; end = buffered.indexOf('\r\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      // +<time> [<db> <client>] "evalsha" "<sha>" "1" "<key>" "<op>" "<ticket>" ...
      const words = [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1] ?? '');
      if (/^(evalsha|eval)$/i.test(words[0] ?? '')) runs.push({ op: words[4] ?? '', ticket: words[5] ?? '' });
    }
    for (const check of seen) check();
  });
  socket.write('MONITOR\r\n');
  // Its first answer (+OK) comes once Redis monitors.
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('data', () => resolve());
  });
  /** The grants (`acquire` answered 1) in Redis's order, each named by its ticket; waits until every call is seen. */
  const grants = async (calls: readonly ScriptCall[]) => {
    const tickets = new Set(calls.map((call) => call.ticket));
    const all = () => runs.filter((run) => tickets.has(run.ticket)).length >= calls.length;
    await new Promise<void>((resolve) => {
      const check = () => {
        if (!all()) return;
        seen.delete(check);
        resolve();
      };
      seen.add(check);
      check();
    });
    const byTicket = new Map<string, ScriptCall[]>();
    for (const call of calls) byTicket.set(call.ticket, [...(byTicket.get(call.ticket) ?? []), call]);
    const granted: string[] = [];
    for (const run of runs) {
      const call = byTicket.get(run.ticket)?.shift();
      if (run.op === 'acquire' && call?.reply?.[0] === 1) granted.push(run.ticket);
    }
    return granted;
  };
  return { runs, grants, stop: () => socket.destroy() };
}
