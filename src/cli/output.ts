import type { Logger } from '../client/events.js';

/** Where a command writes: stdout and stderr in the CLI, buffers in tests. */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

/**
 * The logger of a command's client: each line on stderr, the secret masked in the message and its details (the key
 * never leaves in a log line, whatever text carries it: a document id, a path, an echo in an error).
 */
export function stderrLogger(io: CliOutput, redact: { text(text: string): string }): Logger {
  const line = (message: string, details?: Record<string, unknown>) => {
    io.err(
      redact.text(details && Object.keys(details).length > 0 ? `${message} ${describeDetails(details)}` : message),
    );
  };
  return { debug: line, warn: line };
}

/** The details of a log line as JSON, or as `name=value` pairs when they are not JSON (a cycle, a bigint). */
function describeDetails(details: Record<string, unknown>): string {
  try {
    return JSON.stringify(details);
  } catch {
    return Object.entries(details)
      .map(([name, value]) => `${name}=${String(value)}`)
      .join(' ');
  }
}
