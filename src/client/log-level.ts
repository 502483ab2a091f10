import type { Logger } from './events.js';

/** How much the client logs: `'debug'` (each request, response and retry), `'warn'` (retries, warnings), `'off'`. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'off'];

/** Checks a level given as an option or in `SERVICE_LOG`. @throws {TypeError} naming where it came from. */
export function checkLogLevel(value: unknown, from: string): LogLevel | undefined {
  if (value === undefined || value === '') return undefined;
  const level = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (!(LEVELS as readonly unknown[]).includes(level)) {
    throw new TypeError(
      `${from} must be one of ${LEVELS.map((l) => `'${l}'`).join(', ')}; got ${String(value).slice(0, 40)}`,
    );
  }
  return level as LogLevel;
}

/**
 * `console`, with its `debug` lines on stderr where the runtime has one (Node, Bun, Deno): Node's `console.debug` writes
 * to stdout, which a CLI or a pipeline reads as its output. Where there is no stderr (browsers, Workers), `console`
 * itself, whose `debug` is a log level there.
 */
function consoleOnStderr(): Logger {
  let onStderr: Pick<Console, 'debug'> | undefined;
  return {
    debug: (message, details) => {
      if (onStderr === undefined) {
        const stderr = (globalThis as { process?: { stderr?: NodeJS.WritableStream } }).process?.stderr;
        try {
          onStderr = stderr && typeof console.Console === 'function' ? new console.Console(stderr) : console;
        } catch {
          onStderr = console;
        }
      }
      onStderr.debug(message, details);
    },
    warn: (message, details) => console.warn(message, details),
  };
}

/**
 * The logger the client writes to. With no level (neither `logLevel` nor `SERVICE_LOG`), the given logger as it is
 * (or none: nothing is logged, as before). With a level, the given logger or `console` (its debug lines on stderr), keeping the lines at or above
 * the level: `'debug'` keeps every line, `'info'` and `'warn'` keep the warnings, `'error'` and `'off'` keep none of
 * the client's lines (it writes no error lines: errors are thrown).
 */
export function levelledLogger(logger: Logger | undefined, level: LogLevel | undefined): Logger | undefined {
  if (level === undefined) return logger;
  if (level === 'off' || level === 'error') return undefined;
  const sink = logger ?? consoleOnStderr();
  const keepDebug = level === 'debug';
  return {
    debug: (message, details) => {
      if (keepDebug) sink.debug(message, details);
    },
    warn: (message, details) => sink.warn(message, details),
  };
}
