import { callUserCallback } from '../internal/callback.js';
import { withoutQueryValues } from '../internal/query-values.js';

/** Any console-like logger: `console`, pino, winston... Only `debug` and `warn` are used. */
export interface Logger {
  debug(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
}

/** A request is about to be sent (after its rate-limit slot was granted). */
export interface RequestEvent {
  readonly method: string;
  readonly url: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /**
   * The document the call is for, as given to `createEwayBill`: ties the event to its invoice in a batch.
   * `undefined` for a `request` call, which is not about one document.
   */
  readonly docHashId: string | undefined;
  /** Milliseconds this attempt waited for its key's rate-limit slot before it was sent. */
  readonly queuedMs: number;
}

/** A response arrived, or the attempt failed without one. */
export interface ResponseEvent extends RequestEvent {
  /** The HTTP status, or `undefined` when no response arrived. */
  readonly status: number | undefined;
  /** Milliseconds from sending to the whole body read. */
  readonly durationMs: number;
  /** When the attempt failed: the `code` of the SDK error it ended in, for example `'RATE_LIMITED'` or `'TIMEOUT'`. */
  readonly code?: string | undefined;
  /** When the service answered with an error: its own `error_code`, for example `'PORTAL_ERROR_604'`. */
  readonly serviceErrorCode?: string | undefined;
}

/** A failed attempt will be retried. */
export interface RetryEvent extends RequestEvent {
  /** Why: the error code of the failed attempt, for example `'RATE_LIMITED'` or `'CONNECTION_ERROR'`. */
  readonly reason: string;
  /** Milliseconds waited before the next attempt (which also waits for the rate limit). */
  readonly delayMs: number;
}

/** An attempt has to wait for its key's rate-limit slot: where it stands. */
export interface QueuedEvent extends Omit<RequestEvent, 'queuedMs'> {
  /** The call's priority. */
  readonly priority: 'high' | 'normal' | 'low';
  /** How many calls of its budget start before it if none arrives or leaves (0: it is next). */
  readonly position: number;
  /** When it is expected to start (epoch ms) if no call ahead of it leaves. */
  readonly estimatedStartAt: number;
}

/** Typed callbacks for observability. They never receive the API key or request headers. */
export interface ClientHooks {
  /** An attempt has to wait for its rate-limit slot (it is not called when the slot is free at once). */
  onQueued?(event: QueuedEvent): void;
  onRequest?(event: RequestEvent): void;
  onResponse?(event: ResponseEvent): void;
  onRetry?(event: RetryEvent): void;
}

/**
 * Calls a hook and the logger, and never lets either break the request: a hook that throws or rejects is reported once
 * through `logger.warn`; a logger that fails is ignored (it has nowhere to report to).
 */
export function emit<K extends keyof ClientHooks>(
  hooks: ClientHooks,
  logger: Logger | undefined,
  kind: K,
  event: Parameters<NonNullable<ClientHooks[K]>>[0],
): void {
  const hook = hooks[kind] as ((e: typeof event) => unknown) | undefined;
  if (hook) callUserCallback(`hooks.${kind}`, () => hook.call(hooks, event), [], logger);
  if (!logger) return;
  // A log line leaves the process: the query's values are left out (its names stay), and so are absent fields, so a
  // `request` line has no `docHashId: undefined`.
  const details: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(event)) {
    if (value !== undefined) details[name] = name === 'url' ? withoutQueryValues(value as string) : value;
  }
  // Called as methods: pino's and winston's loggers need their `this`.
  if (kind === 'onRetry') {
    callUserCallback(
      'logger.warn',
      () => logger.warn('invoicing-service-sdk: retrying request', details),
      [],
      undefined,
    );
  } else {
    // onRequest, onQueued, onResponse: 'invoicing-service-sdk: request', '… queued', '… response'.
    const line = `invoicing-service-sdk: ${kind.slice(2).toLowerCase()}`;
    callUserCallback('logger.debug', () => logger.debug(line, details), [], undefined);
  }
}
