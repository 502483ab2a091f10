import { builtinModule } from '../internal/builtin.js';
import { toHex } from '../internal/hex.js';
import type { AcquireOptions } from './queue-options.js';
/** What the client tells a {@link RateLimiter} about how a request ended. */
export interface SlotOutcome {
  /** The service answered 429: the spacing was too tight for it. A limiter may widen its margin for the key. */
  readonly rateLimited?: boolean | undefined;
  /**
   * The request was never sent (the caller aborted while another budget of the call was still being waited for, or
   * the attempt failed before fetch was called). A limiter may give the slot back, so the key's next request need
   * not wait for it.
   */
  readonly unused?: boolean | undefined;
}

/**
 * Tells a {@link RateLimiter} that the request it let start has ended (answered, failed or cancelled).
 * It may carry two notifications the client calls while the request is under way:
 * - `sent()`: the request left, now. The client calls it when it hands the request to fetch, then again when the body
 *   has been written where it can see the socket (Node's built-in fetch), or else once fetch has returned. Each call
 *   moves the request's start later, so a limiter that spaces starts measures from the moment the service could first
 *   see the request.
 * - `leaving()`: the request is being written and `sent()` will follow. Until then the request may reach the service
 *   at any moment (a cold connection, a TLS handshake), so a limiter should not start the key's next request.
 */
export type ReleaseSlot = ((outcome?: SlotOutcome) => void) & {
  readonly sent?: (() => void) | undefined;
  readonly leaving?: (() => void) | undefined;
};

/**
 * Decides when a request of one API key may start. The client asks it before every attempt, and calls the
 * returned {@link ReleaseSlot} (if any) once the attempt has ended.
 *
 * The default is an in-process limiter ({@link createProcessRateLimiter}) shared by every `ServiceClient`
 * of the process. A limiter shared across processes (for example one backed by Redis) implements this
 * same interface and is passed as the client's `rateLimiter` option.
 */
export interface RateLimiter {
  /**
   * Resolves when a request identified by `keyId` may start. `keyId` is a hash of the API key, never the key. A client
   * that names a `rateLimitKey` asks for two budgets per request, one after the other in sorted order: the key's and
   * the name's (a hash of it); the first grant is marked `leaving()` while the second is awaited, and released
   * `{ unused: true }` if that wait fails.
   * Rejects with `signal.reason` as soon as `signal` aborts while waiting; the turn then passes to the next caller.
   * May resolve to a function that the client calls when the request has ended.
   *
   * `options` (the third argument, so a limiter written as `acquire(keyId, signal)` keeps working) carries the call's
   * `priority`, its `deadline` (epoch ms) and an `onQueued` callback. A limiter that ignores them works first in,
   * first out: the client still ends the wait at the deadline with a `QueueTimeoutError`, and gives a grant that comes
   * later back at once (`{ unused: true }`).
   */
  acquire(
    keyId: string,
    signal?: AbortSignal,
    options?: AcquireOptions,
    // biome-ignore lint/suspicious/noConfusingVoidType: `void` lets a plain `async (id) => { ... }` limiter fit.
  ): Promise<ReleaseSlot | undefined | void>;
}

/**
 * Marks a limiter of the SDK's own that rejects `acquire` as soon as its signal aborts (the in-process one): the client
 * then does not wrap its wait in one more listener and promise per call, which a queue of many calls aborted at once
 * pays for (docs/benchmarks.md). A registered symbol, so the ESM and CJS copies of the SDK agree.
 */
export const HONORS_ABORT: unique symbol = Symbol.for('invoicing-service-sdk.limiter-honors-abort') as never;

/**
 * Marks the Redis limiter, which grants one request several budgets at once (a key's own, and its `rateLimitKey`'s):
 * `limiter[ACQUIRE_ALL](keyIds, signal)` resolves with one slot that holds them all. Another limiter is asked for each
 * budget in turn (see src/throttle/budgets.ts). A registered symbol, so the ESM and CJS copies of the SDK agree.
 */
export const ACQUIRE_ALL: unique symbol = Symbol.for('invoicing-service-sdk.limiter-acquire-all') as never;

/** A limiter that takes several budgets for one request: the Redis limiter. */
export interface MultiBudgetLimiter extends RateLimiter {
  [ACQUIRE_ALL](keyIds: readonly string[], signal?: AbortSignal, options?: AcquireOptions): Promise<ReleaseSlot>;
}

/**
 * Marks the in-process limiter: `limiter[ACQUIRE_HELD](keyId, signal, hold)` is `acquire` whose grant, with `hold`,
 * keeps the key's next request waiting until this one is sent or released, however long (see src/throttle/budgets.ts).
 */
export const ACQUIRE_HELD: unique symbol = Symbol.for('invoicing-service-sdk.limiter-acquire-held') as never;

/** The in-process limiter's held grant. */
export type AcquireHeld = (
  keyId: string,
  signal: AbortSignal | undefined,
  hold: boolean,
  options?: AcquireOptions,
) => Promise<ReleaseSlot>;

/**
 * An attempt waiting for its slot at the in-process limiter ({@link ENQUEUE}): the one record of it the key's line
 * holds (issue 29, item 8). The limiter calls `granted` with the slot, or `failed` with why there is none (the abort,
 * the deadline); either once, never both. `hold` marks a held grant (see {@link AcquireHeld}).
 */
export interface SlotWaiter {
  readonly hold?: boolean | undefined;
  granted(release: ReleaseSlot): void;
  failed(reason: unknown): void;
}

/**
 * Marks the in-process limiter's own wait: `limiter[ENQUEUE](keyId, waiter, signal, options)` puts `waiter` in the
 * key's line, as `acquire` does, and tells it the outcome (see {@link SlotWaiter}) rather than settling a promise: a
 * call queued for its slot holds its own record and nothing of the limiter's but the line's entry (and, with a signal
 * or a deadline, what ends its wait). Returns `false`, doing nothing, when called on another object than the limiter
 * itself (a partner's wrapper that copied the limiter's marks): its own `acquire` is then asked, as it expects.
 * A registered symbol, so the ESM and CJS copies of the SDK agree.
 */
export const ENQUEUE: unique symbol = Symbol.for('invoicing-service-sdk.limiter-enqueue') as never;

/** The in-process limiter's own wait (see {@link ENQUEUE}). */
export type Enqueue = (
  this: unknown,
  keyId: string,
  waiter: SlotWaiter,
  signal: AbortSignal | undefined,
  options?: AcquireOptions,
) => boolean;

interface NodeHashLike {
  createHash(algorithm: 'sha256'): { update(data: string): { digest(encoding: 'hex'): string } };
}

/** The hex SHA-256 through node:crypto, without leaving the current turn; `undefined` where it is absent (edge). */
function nodeSha256Hex(text: string): string | undefined {
  const nodeCrypto = builtinModule('node:crypto') as Partial<NodeHashLike> | undefined;
  return typeof nodeCrypto?.createHash === 'function'
    ? nodeCrypto.createHash('sha256').update(text).digest('hex')
    : undefined;
}

/** {@link rateLimitKeyId} in the current turn where node:crypto is there, else `undefined`. */
export function rateLimitKeyIdNow(apiKey: string): string | undefined {
  return nodeSha256Hex(apiKey);
}

/**
 * Computes the identifier of an API key for a {@link RateLimiter}: the hex SHA-256 of the key. On Node it hashes in
 * the current turn (node:crypto), so a request reaches the limiter without waiting on the thread pool, in call order;
 * elsewhere it uses Web Crypto.
 */
export async function rateLimitKeyId(apiKey: string): Promise<string> {
  const fromNode = nodeSha256Hex(apiKey);
  if (fromNode !== undefined) return fromNode;
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(apiKey));
  return toHex(new Uint8Array(digest));
}
