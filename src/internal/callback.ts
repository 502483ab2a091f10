/** Anything with a console-like `warn`: the place a failing user callback is reported. */
export interface WarnSink {
  warn(message: string, details?: Record<string, unknown>): void;
}

/** A short description of a thrown value that never includes its own fields (they could hold anything). */
function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) return `${thrown.name}: ${thrown.message}`.slice(0, 500);
  return typeof thrown === 'string' ? thrown.slice(0, 500) : `a thrown ${thrown === null ? 'null' : typeof thrown}`;
}

function report(sink: WarnSink | undefined, name: string, thrown: unknown): void {
  try {
    sink?.warn(`invoicing-service-sdk: ${name} failed; the SDK went on without it: ${describeThrown(thrown)}`, {
      callback: name,
    });
  } catch {
    // A logger that throws has nowhere left to report to.
  }
}

/**
 * Calls a user callback so that it can never break the SDK: a synchronous throw is caught, and a returned promise
 * that rejects is observed (never an unhandled rejection, which exits Node by default). Either failure is reported
 * once through `sink.warn`, naming the callback. Returns nothing: the callback never changes the SDK's outcome.
 */
export function callUserCallback<A extends unknown[]>(
  name: string,
  fn: ((...args: A) => unknown) | undefined,
  args: A,
  sink: WarnSink | undefined,
): void {
  if (typeof fn !== 'function') return;
  let result: unknown;
  try {
    result = fn(...args);
  } catch (thrown) {
    report(sink, name, thrown);
    return;
  }
  if (result !== null && typeof result === 'object' && typeof (result as PromiseLike<unknown>).then === 'function') {
    try {
      Promise.resolve(result).then(undefined, (thrown: unknown) => report(sink, name, thrown));
    } catch (thrown) {
      report(sink, name, thrown);
    }
  }
}
