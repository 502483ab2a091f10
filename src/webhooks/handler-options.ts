import type { WarnSink } from '../internal/callback.js';
import { type CryptoChoice, resolveCryptoPath } from './crypto-backend.js';
import { isDedupeStore, type WebhookDedupeStore } from './dedupe-store.js';
import type { WebhookEvent } from './events.js';
import { createMemoryDedupeStore } from './memory-dedupe-store.js';
import { toSecretList, type WebhookSecret } from './secrets.js';

/** What a webhook handler reports to `onError` about a delivery it did not answer with 2xx. */
export interface WebhookErrorInfo {
  /** The HTTP status answered. */
  readonly status: number;
  /** The event's id, once the signature and envelope were good. */
  readonly eventId?: string | undefined;
}

/** Options of `createWebhookHandler` and `createNodeWebhookHandler`. */
export interface WebhookHandlerOptions {
  /**
   * The webhook secret from the dashboard's API integration section. While it is rotated, pass both the new and the
   * old secret (`[next, previous]`): a delivery signed with either is accepted; drop the old one once it is retired.
   */
  secret: WebhookSecret;
  /**
   * Called once per new, verified event. The answer waits for it: 2xx when it resolves, 500 when it throws,
   * so the service can redeliver. The service waits 10 seconds at most: put slow work in a queue and return.
   */
  onEvent: (event: WebhookEvent) => void | Promise<void>;
  /**
   * Where seen `event_id`s are recorded, or `false` to turn de-duplication off.
   * @default createMemoryDedupeStore() (one process only)
   */
  dedupe?: WebhookDedupeStore | false | undefined;
  /**
   * How long a processed `event_id` is remembered: the window in which redeliveries and replays are refused.
   * @default 604800000 (7 days)
   */
  dedupeTtlMs?: number | undefined;
  /**
   * How long a claim of an event being processed lasts, so an event whose process died is not blocked for long.
   * Keep it above your slowest `onEvent`.
   * @default 120000 (2 minutes)
   */
  processingLeaseMs?: number | undefined;
  /**
   * The largest body accepted, in bytes; a larger one gets 413 without being read further.
   * @default 1048576 (1 MiB; events are well under 1 KB)
   */
  maxBodyBytes?: number | undefined;
  /** Which HMAC implementation to use. @default 'auto' */
  crypto?: CryptoChoice | undefined;
  /**
   * Called for every delivery not answered with 2xx, with the cause (never containing the secret). It only reports:
   * if it throws or returns a promise that rejects, the failure goes to `logger.warn` once and the answer stays the same.
   * @default logs 5xx causes through `logger.warn`; other 4xx (forgeries, probes) are not logged. Whatever `onError`
   *   is, a correctly signed body refused with 400 is reported once through `logger.warn` (its id and fields).
   */
  onError?: ((error: unknown, info: WebhookErrorInfo) => unknown) | undefined;
  /**
   * Where the handler reports what it cannot put in an answer: a failing `onError` or dedupe `commit`/`release`,
   * a drifted event (once per event id), a correctly signed body refused with 400 (once per body: the event id as
   * received and the fields, never the body), and (with the default `onError`) the causes of 5xx answers. Anything with a console-like `warn(message)`.
   * @default console
   */
  logger?: WarnSink | undefined;
  /**
   * How long the handler waits for the whole body, in milliseconds. A body still arriving after that is answered
   * with 408 and the connection is closed: the service waits 10 s for an answer (spec), so a body that slow is not a
   * real delivery, and a client dripping bytes cannot hold a connection open.
   * @default 10000
   */
  bodyTimeoutMs?: number | undefined;
  /**
   * What to do with an event of a known type whose `data` does not match the spec's shape (payload drift).
   * `false` delivers it to `onEvent` as an unrecognised event (`known: false`, `received_event_type`, `issues`) and
   * answers 2xx, so no event is lost; `true` refuses it with 400 (`WebhookPayloadError`), and the service redelivers.
   * @default false
   */
  strictPayload?: boolean | undefined;
}

/** {@link WebhookHandlerOptions} checked once, with defaults filled in. */
export interface ResolvedHandlerOptions {
  /** The secrets a signature may match, at least one. */
  readonly secrets: readonly string[];
  readonly onEvent: (event: WebhookEvent) => void | Promise<void>;
  readonly dedupe: WebhookDedupeStore | undefined;
  readonly dedupeTtlMs: number;
  readonly processingLeaseMs: number;
  readonly maxBodyBytes: number;
  readonly crypto: CryptoChoice;
  readonly onError: (error: unknown, info: WebhookErrorInfo) => unknown;
  readonly logger: WarnSink;
  readonly bodyTimeoutMs: number;
  readonly strictPayload: boolean;
}

function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(
      `${name} must be a positive integer number of ${name.endsWith('Bytes') ? 'bytes' : 'milliseconds'}; got ${String(value)}.`,
    );
  }
  return value;
}

/**
 * The default `onError`: 5xx causes go to the logger. 4xx are forgeries and probes, not worth a line (an authentic body
 * refused with 400 is reported by the delivery path itself, whatever `onError` is).
 */
function defaultOnError(logger: WarnSink): (error: unknown, info: WebhookErrorInfo) => void {
  return (error, info) => {
    if (info.status < 500) return;
    const described = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const event = info.eventId ? ` for event ${info.eventId}` : '';
    logger.warn(`invoicing-service-sdk: webhook answered ${info.status}${event}: ${described.slice(0, 500)}`, {
      status: info.status,
    });
  };
}

function isWarnSink(value: unknown): value is WarnSink {
  return typeof value === 'object' && value !== null && typeof (value as Partial<WarnSink>).warn === 'function';
}

/**
 * Checks handler options once, when the handler is made, so a mistake shows at start-up, not at the first event.
 * @throws {TypeError} Naming the option that is wrong.
 */
export function resolveHandlerOptions(options: WebhookHandlerOptions): ResolvedHandlerOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('Webhook handler options must be an object with at least { secret, onEvent }.');
  }
  const secrets = toSecretList(options.secret, 'secret');
  if (typeof options.onEvent !== 'function') {
    throw new TypeError('onEvent must be a function that handles one verified event (it may return a promise).');
  }
  const { dedupe } = options;
  if (dedupe !== undefined && dedupe !== false && !isDedupeStore(dedupe)) {
    throw new TypeError(
      'dedupe must be a store with claim, commit and release methods (see WebhookDedupeStore), or false.',
    );
  }
  if (options.onError !== undefined && typeof options.onError !== 'function') {
    throw new TypeError('onError must be a function.');
  }
  if (options.logger !== undefined && !isWarnSink(options.logger)) {
    throw new TypeError('logger must be an object with a warn(message) method, such as console.');
  }
  if (options.strictPayload !== undefined && typeof options.strictPayload !== 'boolean') {
    throw new TypeError('strictPayload must be true or false.');
  }
  const logger = options.logger ?? console;
  const crypto = options.crypto ?? 'auto';
  resolveCryptoPath(crypto);
  return Object.freeze({
    secrets,
    onEvent: options.onEvent,
    dedupe: dedupe === false ? undefined : (dedupe ?? createMemoryDedupeStore()),
    dedupeTtlMs: positiveInteger(options.dedupeTtlMs, 'dedupeTtlMs', 7 * 24 * 60 * 60 * 1000),
    processingLeaseMs: positiveInteger(options.processingLeaseMs, 'processingLeaseMs', 120_000),
    maxBodyBytes: positiveInteger(options.maxBodyBytes, 'maxBodyBytes', 1024 * 1024),
    crypto,
    onError: options.onError ?? defaultOnError(logger),
    logger,
    bodyTimeoutMs: positiveInteger(options.bodyTimeoutMs, 'bodyTimeoutMs', 10_000),
    strictPayload: options.strictPayload ?? false,
  });
}
