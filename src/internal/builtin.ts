/** Something with Node's `process.getBuiltinModule` (Node >= 22.3, Bun, Deno), or not (Workers, browsers). */
export interface ProcessLike {
  getBuiltinModule?: (id: string) => unknown;
}

/**
 * A built-in module of the runtime (`'node:crypto'`, `'node:diagnostics_channel'`), looked up synchronously, or
 * `undefined` where the runtime has none. Never a static import, so the SDK stays loadable in edge runtimes.
 * `proc` is the process object by default; tests pass another to play an edge runtime.
 */
export function builtinModule(
  id: string,
  proc: ProcessLike | undefined = (globalThis as { process?: ProcessLike }).process,
): unknown {
  try {
    return proc?.getBuiltinModule?.(id);
  } catch {
    return undefined;
  }
}
