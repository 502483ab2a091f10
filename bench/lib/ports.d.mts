import type { ChildProcess } from 'node:child_process';

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number>;

/** Spawns `redis-server` with `args` and resolves once it accepts connections (its output says so). */
export function spawnRedis(args: readonly string[]): Promise<ChildProcess>;

/**
 * A redis-server on `port` of 127.0.0.1, without persistence, once it accepts connections. `extraArgs` come last, so
 * they override (`['--appendonly', 'yes']`) or add (`['--dir', dir]`, `['--enable-debug-command', 'local']`).
 */
export function startRedis(port: number, extraArgs?: readonly string[]): Promise<ChildProcess>;
