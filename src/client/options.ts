import type { PreflightFinding } from '../gst/preflight.js';
import { PREFLIGHT_MODES, type PreflightMode } from '../gst/preflight-modes.js';
import { describeType, describeValue } from '../internal/describe.js';
import { MAX_TIMER_MS } from '../internal/timers.js';
import type { Priority } from '../throttle/priority-queue.js';
import type { RateLimiter } from '../throttle/rate-limiter.js';
import { type ApiKeySource, keyProblem } from './credentials.js';
import type { ClientHooks, Logger } from './events.js';
import { checkHeaders, clientHeaders, type HeaderRecord } from './headers.js';
import { checkLogLevel, levelledLogger } from './log-level.js';
import { isBrowserLike, readEnv } from './runtime.js';

/** Options of `new ServiceClient(options)`. */
export interface ServiceClientOptions {
  /**
   * The company's API key, sent as `Authorization: Bearer <key>`. Never printed by the SDK.
   *
   * A function is called before each attempt queues for its rate-limit slot (the key is one of its budgets) and may
   * return a promise: a key regenerated in the dashboard is picked up without a restart. The call's `signal` and
   * `timeout` bound the read (an `AbortError`, or a `TimeoutError`; nothing is sent). After a 401 `UNAUTHORIZED` the
   * client reads it once more and, if the key changed, sends once more with the new key. What it returns is kept only
   * for that attempt.
   * @default process.env.SERVICE_API_KEY
   * @example apiKey: () => secrets.get(`gst/${companyId}`)
   */
  apiKey?: ApiKeySource | undefined;
  /**
   * Names a rate-limit budget (1 request per second) this client spends besides its key's own, for example the
   * company id, so that a rotated key keeps its spacing and every client of one company shares one budget. Each call
   * waits for both: the key's budget is the key's whatever name a client gives it, so no name gives a key a second
   * budget. Never sent to the service.
   * @default undefined (the key's own budget only)
   * @example rateLimitKey: `company-${companyId}`
   */
  rateLimitKey?: string | undefined;
  /**
   * The service's base URL, including the partner path prefix, with or without a trailing slash.
   * @default process.env.SERVICE_BASE_URL
   * @example 'https://host.example/api/partner'
   */
  baseUrl?: string | undefined;
  /**
   * Milliseconds one attempt may take, from sending the request to reading the whole answer.
   * Time spent waiting for the rate limit is not counted. `false` for no timeout.
   * @default 30000
   */
  timeout?: number | false | undefined;
  /**
   * How many times a failed call is retried automatically. Only failures where the service certainly
   * did not act are retried: a 429, and a connection that failed before the request was sent.
   * @default 2
   */
  maxRetries?: number | undefined;
  /**
   * The most bytes of a success (2xx) answer's body the client reads. A valid JSON answer up to this size is returned
   * whole; a longer one is not read past it and rejects with `UnexpectedResponseError` (`reason: 'too-large'`,
   * `mayHaveSucceeded: true`). Error answers are read up to 1 MiB whatever this says. From 1 to 268435456 (256 MiB).
   * @default 10485760 (10 MiB)
   * @example maxResponseBytes: 50 * 1024 * 1024 // a large product list
   */
  maxResponseBytes?: number | undefined;
  /** A fetch implementation to use instead of `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch | undefined;
  /**
   * Extra headers sent with every request. `Authorization`, `Content-Type` and `Accept` are the SDK's, as are the
   * connection's (`Host`, `Content-Length`, ...): setting one is a `TypeError`, as in a call's `options.headers`. A
   * `User-Agent` is sent after the SDK's own.
   * @default undefined
   * @throws {TypeError} a header the SDK or the HTTP stack sets, `__proto__`, or a name or value HTTP cannot carry.
   * @example headers: { 'X-Partner': 'erp-1', 'User-Agent': 'erp/1.0' }
   */
  headers?: Record<string, string> | undefined;
  /**
   * Decides when each request may start. The default is shared by every client of the process and allows
   * 1 request per second per API key. Pass your own to share the limit across processes.
   */
  rateLimiter?: RateLimiter | undefined;
  /**
   * Receives debug lines (each request and response, with the document id, attempt, rate-limit wait and status; never
   * the key or a body) and warnings (retries). Any console-like object. Without it and without a log level, nothing
   * is logged.
   */
  logger?: Logger | undefined;
  /**
   * The log switch: `'debug'` logs every request and response, `'warn'` (and `'info'`) only retries and warnings,
   * `'error'` and `'off'` nothing. With a level and no `logger`, lines go to `console`. Turning on request logging in
   * production is one environment variable: `SERVICE_LOG=debug`.
   * @default process.env.SERVICE_LOG, else the logger as given (or nothing)
   */
  logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'off' | undefined;
  /** Typed callbacks for request start, retries and responses, for metrics and tracing. */
  hooks?: ClientHooks | undefined;
  /**
   * Checks the portal's well-known rules (export addresses, PIN codes, transporter id, vehicle number...) before
   * sending, to save a round trip and a rate-limit slot. The service's spec does not state these rules, so by default
   * findings only warn: `'warn'` reports them to `onWarning` (or the logger) and still sends; `'strict'` throws a
   * `ValidationError` and sends nothing; `'off'` skips the check.
   * @default 'warn'
   */
  preflight?: PreflightMode | undefined;
  /** Receives each preflight finding in `'warn'` mode. Without it, findings go to `logger.warn`. */
  onWarning?: ((finding: PreflightFinding) => void) | undefined;
  /**
   * The API key grants full access to the company's data and belongs on servers only, so the client refuses to
   * start in a browser. Set this to `true` only if you understand that every visitor can read the key.
   * @default false
   */
  dangerouslyAllowBrowser?: boolean | undefined;
  /**
   * Remembers each e-way bill request across crashes (issue 31): `createEwayBill`, `createEwayBillOnce` and
   * `createEwayBills` record each document's intent before its request leaves and its outcome after, under a
   * per-document claim. A document known as generated returns its recorded result without a request; one whose
   * earlier attempt may have been sent (in any process) waits until that attempt can no longer be in flight, and a
   * 604 then means `'already-generated'`; a body refused for good is refused again locally (see `retryRefused`). The
   * journal holds the request bodies (business data, never the key). See `pendingDocuments()` and `recover()`.
   * @default undefined (no journal)
   * @example
   * import { createFileJournal } from 'invoicing-service-sdk/journal';
   * const client = new ServiceClient({ journal: createFileJournal('/var/lib/erp/ewaybills.journal') });
   * await client.recover(); // at start-up: the documents a crash left unknown
   */
  journal?: import('../journal/journal.js').Journal | undefined;
}

/** Options of one call. */
export interface RequestOptions {
  /** Cancels the call: while it waits for the rate limit (no request is ever sent), or while in flight. */
  signal?: AbortSignal | undefined;
  /** Overrides the client's `timeout` for each attempt of this call. */
  timeout?: number | false | undefined;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number | undefined;
  /**
   * Also retry failures after which the service may have acted (a timeout, a reset after sending, a 5xx).
   * This can generate a second e-way bill. Leave it off unless you check for `isAlreadyGenerated` afterwards.
   * @default false
   */
  retryWhenMaybeSent?: boolean | undefined;
  /**
   * With a journal: send a body again although the journal recorded the service's definitive refusal of this very
   * body (without it, the recorded `PortalError` is thrown again and nothing is sent). A different body is always sent.
   * @default false
   */
  retryRefused?: boolean | undefined;
  /**
   * Overrides the client's `maxResponseBytes` for this call: the most bytes of a 2xx answer's body read.
   * @default the client's (10 MiB unless set)
   */
  maxResponseBytes?: number | undefined;
  /**
   * How urgent the call is among the calls waiting for its key's rate limit (1 request per second): `'high'` calls
   * start before `'normal'` ones, which start before `'low'` ones; first in, first out within one. After 9 grants in
   * a row passed over a waiting less urgent call, the 10th goes to it. On `createRedisRateLimiter` this holds across
   * processes. A partner's own `rateLimiter` receives it in `acquire`'s options.
   * @default 'normal' (`createEwayBills` and the CLI: `'low'`)
   * @example await client.createEwayBill(id, model, { priority: 'high' }) // a truck waits at the gate
   */
  priority?: Priority | undefined;
  /**
   * The most milliseconds the call may wait for rate-limit slots, in all (retries' slots included). When it cannot
   * start in time it rejects with `QueueTimeoutError` (`QUEUE_TIMEOUT`), nothing sent for that wait: at once when the
   * calls ahead of it would keep it waiting longer, otherwise when the time runs out. From 0 to 2147483647.
   * @default undefined (no limit)
   * @example await client.createEwayBill(id, model, { priority: 'high', maxQueueWait: 5000 })
   */
  maxQueueWait?: number | undefined;
}

/** Options after normalisation: frozen, validated, with defaults applied. */
export interface ResolvedOptions {
  readonly baseUrl: string;
  readonly timeout: number | false;
  readonly maxRetries: number;
  readonly maxResponseBytes: number;
  readonly fetch: typeof globalThis.fetch | undefined;
  /** Every request's headers: the checked `headers` option, the SDK's `User-Agent` and `Accept`. */
  readonly headers: HeaderRecord;
  readonly logger: Logger | undefined;
  /** The log switch says nothing at all (`'off'` or `'error'`): preflight warnings do not fall back to `console`. */
  readonly quiet: boolean;
  readonly hooks: ClientHooks;
  readonly preflight: PreflightMode;
  readonly onWarning: ((finding: PreflightFinding) => void) | undefined;
  readonly journal: ServiceClientOptions['journal'];
}

export const DEFAULT_TIMEOUT = 30_000;
export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
/** The largest cap: a longer body could not become one string (V8 limits the length of a string; see its `String.length` maximum). */
const MAX_RESPONSE_BYTES_LIMIT = 256 * 1024 * 1024;

const MAX_TIMEOUT_MS = MAX_TIMER_MS;

function checkTimeout(value: unknown, name: string): number | false {
  if (value === false) return false;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMEOUT_MS) {
    throw new TypeError(
      `${name} must be a number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, or false; got ${String(value)}`,
    );
  }
  // AbortSignal.timeout takes whole milliseconds.
  return Math.ceil(value);
}

function checkRetries(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 10) {
    throw new TypeError(`${name} must be an integer from 0 to 10; got ${String(value)}`);
  }
  return value;
}

function checkMaxResponseBytes(value: unknown, name: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > MAX_RESPONSE_BYTES_LIMIT) {
    throw new TypeError(
      `${name} must be a whole number of bytes from 1 to ${MAX_RESPONSE_BYTES_LIMIT} (256 MiB); got ${describeValue(value)}`,
    );
  }
  return value as number;
}

/** The call's cap on a 2xx body: its own `maxResponseBytes`, checked, or the client's. */
export function resolveMaxResponseBytes(value: number | undefined, fallback: number, name: string): number {
  return value === undefined ? fallback : checkMaxResponseBytes(value, name);
}

/**
 * Checks the options of one call before anything else happens, so a wrong one is a `TypeError` naming it.
 * @throws {TypeError} when `options` is not an object or one of its fields has the wrong type or range.
 */
export function checkRequestOptions(options: unknown, method = 'createEwayBill'): RequestOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`${method} options must be an object; got ${describeType(options)}`);
  }
  const { signal, retryWhenMaybeSent, timeout, maxRetries } = options as RequestOptions;
  // Duck-typed: a signal from another realm (a test environment, a framework's polyfill) is still a signal.
  const signalLike = signal as Partial<AbortSignal> | undefined;
  if (
    signal !== undefined &&
    (typeof signalLike?.aborted !== 'boolean' ||
      typeof signalLike.addEventListener !== 'function' ||
      typeof signalLike.removeEventListener !== 'function')
  ) {
    throw new TypeError(
      `options.signal must be an AbortSignal; got ${describeType(signal)} (it needs aborted, addEventListener and removeEventListener)`,
    );
  }
  for (const [name, value] of [
    ['retryWhenMaybeSent', retryWhenMaybeSent],
    ['retryRefused', (options as RequestOptions).retryRefused],
  ]) {
    if (value !== undefined && typeof value !== 'boolean') {
      throw new TypeError(`options.${name} must be a boolean; got ${describeType(value)}`);
    }
  }
  if (timeout !== undefined) checkTimeout(timeout, 'options.timeout');
  if (maxRetries !== undefined) checkRetries(maxRetries, 'options.maxRetries');
  const { maxResponseBytes, priority, maxQueueWait } = options as RequestOptions;
  if (maxResponseBytes !== undefined) checkMaxResponseBytes(maxResponseBytes, 'options.maxResponseBytes');
  // Not PRIORITIES' module: the priority queue loads on first use, off the client's first chunk.
  if (![undefined, 'high', 'normal', 'low'].includes(priority)) {
    throw new TypeError(`options.priority must be one of 'high', 'normal', 'low'; got ${describeValue(priority)}`);
  }
  // NaN and ±Infinity fail the range.
  if (
    maxQueueWait !== undefined &&
    !(typeof maxQueueWait === 'number' && maxQueueWait >= 0 && maxQueueWait <= MAX_TIMER_MS)
  ) {
    throw new TypeError(
      `options.maxQueueWait must be a number of milliseconds from 0 to ${MAX_TIMER_MS}; got ${String(maxQueueWait)}`,
    );
  }
  return options as RequestOptions;
}

/**
 * Internal options of a call, keyed by symbols a partner's code cannot spell: what `createEwayBillOnce` and
 * `createEwayBills` tell the client and each other. Never part of the public options' types.
 */
export const EARLIER_SEND: unique symbol = Symbol('invoicing-service-sdk.earlierSend');
/** `createEwayBillOnce`'s `mayAlreadyExist`: a request of the document outside this call may have made the bill. */
export const MAY_ALREADY_EXIST: unique symbol = Symbol('invoicing-service-sdk.mayAlreadyExist');

/** A call's options, checked and resolved against the client's once, as the call holds them. */
export interface CallOptions {
  readonly timeout: number | false;
  readonly maxRetries: number;
  readonly maxResponseBytes: number;
  readonly signal: AbortSignal | undefined;
  readonly retryWhenMaybeSent: boolean;
  /** The call's priority for its rate-limit slots. */
  readonly priority: Priority;
  /** The call's `maxQueueWait` (ms), and the time (epoch ms, from the call's start) every wait of the call for a slot must end by. */
  readonly maxQueueWait: number | undefined;
  readonly queueDeadline: number | undefined;
  /** An earlier request of this call (`createEwayBillOnce`'s first) may have reached the service. */
  readonly earlierSend: boolean;
  /** With a journal: send a body again although the journal recorded its definitive refusal (`retryRefused`). */
  readonly retryRefused: boolean;
  /**
   * A request of the document outside this call and its journal (an earlier process, a ledger of an older version)
   * may have made the bill (`createEwayBillOnce`'s `mayAlreadyExist`): with a journal, its 604 is recorded as the bill.
   */
  readonly mayAlreadyExist: boolean;
}

/**
 * Checks a call's options and resolves them against the client's, in one pass: the only place a call's options are
 * read. `options` is the object the caller passed.
 * @throws {TypeError} as {@link checkRequestOptions}.
 */
export function resolveCallOptions(options: unknown, client: ResolvedOptions, method: string): CallOptions {
  const given = checkRequestOptions(options, method);
  return {
    // Checked above; whole milliseconds, as the client's own.
    timeout:
      given.timeout === undefined || given.timeout === false
        ? (given.timeout ?? client.timeout)
        : Math.ceil(given.timeout),
    maxRetries: given.maxRetries ?? client.maxRetries,
    maxResponseBytes: given.maxResponseBytes ?? client.maxResponseBytes,
    signal: given.signal,
    retryWhenMaybeSent: given.retryWhenMaybeSent === true,
    priority: given.priority ?? 'normal',
    maxQueueWait: given.maxQueueWait,
    // From the call's start: its retries' waits share it.
    queueDeadline: given.maxQueueWait === undefined ? undefined : Date.now() + given.maxQueueWait,
    earlierSend: (given as { [EARLIER_SEND]?: unknown })[EARLIER_SEND] === true,
    retryRefused: given.retryRefused === true,
    mayAlreadyExist: (given as { [MAY_ALREADY_EXIST]?: unknown })[MAY_ALREADY_EXIST] === true,
  };
}

export function resolveTimeout(value: number | false | undefined, fallback: number | false, name: string) {
  return value === undefined ? fallback : checkTimeout(value, name);
}

export function resolveRetries(value: number | undefined, fallback: number, name: string): number {
  return value === undefined ? fallback : checkRetries(value, name);
}

// What a client without its own headers or hooks holds is one record per process, not a copy per client: a platform
// with one client per company holds thousands of clients (issue 29, item 8). Both are frozen.
const NO_HOOKS: ClientHooks = Object.freeze({});
let sdkHeaders: HeaderRecord | undefined;
const defaultHeaders = (): HeaderRecord => (sdkHeaders ??= clientHeaders(undefined));

/** The last base URL given and its normal form: clients of one service share the one string. */
let lastBaseUrl: readonly [given: string, normal: string] | undefined;
function sharedBaseUrl(given: string): string {
  if (lastBaseUrl?.[0] !== given) lastBaseUrl = [given, normaliseBaseUrl(given.trim())];
  return lastBaseUrl[1];
}

function normaliseBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError(`baseUrl must be an absolute http(s) URL such as 'https://host/api/partner'; got '${raw}'`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`baseUrl must use https (or http for a local mock); got '${url.protocol}'`);
  }
  if (url.search || url.hash) throw new TypeError('baseUrl must not contain a query or a fragment');
  if (url.username || url.password) throw new TypeError('baseUrl must not contain credentials; pass apiKey instead');
  return url.href.replace(/\/+$/, '');
}

const JOURNAL_METHODS = 'claim recordIntent recordOutcome release get pending compact close'.split(' ');

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Checks the options that are objects or callbacks, so a wrong one fails here and not at the first request. */
function checkShapes(options: ServiceClientOptions): void {
  const { rateLimiter, logger, hooks } = options;
  if (rateLimiter !== undefined && !(isObject(rateLimiter) && typeof rateLimiter.acquire === 'function')) {
    throw new TypeError('rateLimiter must be an object with an acquire(keyId, signal) method');
  }
  const { journal } = options;
  const missing = JOURNAL_METHODS.filter((name) => !isObject(journal) || typeof journal[name] !== 'function');
  if (journal !== undefined && missing.length > 0) {
    throw new TypeError(
      `journal must be a Journal (createFileJournal, createRedisJournal); it lacks ${missing.join(', ')}`,
    );
  }
  if (
    logger !== undefined &&
    !(isObject(logger) && typeof logger.debug === 'function' && typeof logger.warn === 'function')
  ) {
    throw new TypeError('logger must have debug() and warn() methods, as console does');
  }
  if (hooks !== undefined) {
    const bad = isObject(hooks)
      ? Object.entries(hooks).find(([, fn]) => fn !== undefined && typeof fn !== 'function')
      : ['hooks'];
    if (bad)
      throw new TypeError(
        `hooks must be an object of callbacks (onRequest, onResponse, onRetry); ${bad[0]} is not a function`,
      );
  }
}

/** Validates the options once, at construction. Returns the key apart so it never sits in a printable object. */
export function resolveOptions(options: ServiceClientOptions): { apiKey: ApiKeySource; resolved: ResolvedOptions } {
  if (typeof options !== 'object' || options === null) throw new TypeError('ServiceClient options must be an object');
  if (isBrowserLike() && options.dangerouslyAllowBrowser !== true) {
    throw new TypeError(
      'ServiceClient refuses to run in a browser: the API key grants full access to the company and must stay on a server. ' +
        'Call the service from your backend, or pass dangerouslyAllowBrowser: true if you accept exposing the key.',
    );
  }
  const given = options.apiKey;
  if (given !== undefined && typeof given !== 'string' && typeof given !== 'function') {
    throw new TypeError(
      `apiKey must be a string or a function that returns one; got ${describeType(given)} (the value is not shown)`,
    );
  }
  const apiKey = given ?? readEnv('SERVICE_API_KEY');
  if (apiKey === undefined || (typeof apiKey === 'string' && apiKey.trim() === '')) {
    throw new TypeError('Missing API key: pass the apiKey option or set the SERVICE_API_KEY environment variable.');
  }
  const problem = typeof apiKey === 'string' ? keyProblem(apiKey) : undefined;
  if (problem) throw new TypeError(`apiKey ${problem}`);
  const { rateLimitKey } = options;
  if (rateLimitKey !== undefined && (typeof rateLimitKey !== 'string' || rateLimitKey.trim() === '')) {
    throw new TypeError(`rateLimitKey must be a non-empty string; got ${describeType(rateLimitKey)}`);
  }
  const baseUrl = options.baseUrl ?? readEnv('SERVICE_BASE_URL');
  if (typeof baseUrl !== 'string' || baseUrl.trim() === '') {
    throw new TypeError(
      "Missing base URL: pass the baseUrl option or set the SERVICE_BASE_URL environment variable (for example 'https://host/api/partner').",
    );
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function') {
    throw new TypeError('fetch must be a function');
  }
  checkShapes(options);
  const preflight = options.preflight ?? 'warn';
  if (!(PREFLIGHT_MODES as readonly string[]).includes(preflight)) {
    throw new TypeError(
      `preflight must be one of ${PREFLIGHT_MODES.map((m) => `'${m}'`).join(', ')}; got ${String(preflight)}`,
    );
  }
  if (options.onWarning !== undefined && typeof options.onWarning !== 'function') {
    throw new TypeError('onWarning must be a function');
  }
  const level = checkLogLevel(options.logLevel, 'logLevel') ?? checkLogLevel(readEnv('SERVICE_LOG'), 'SERVICE_LOG');
  const resolved: ResolvedOptions = Object.freeze({
    baseUrl: sharedBaseUrl(baseUrl),
    timeout: resolveTimeout(options.timeout, DEFAULT_TIMEOUT, 'timeout'),
    maxRetries: resolveRetries(options.maxRetries, DEFAULT_MAX_RETRIES, 'maxRetries'),
    maxResponseBytes: resolveMaxResponseBytes(options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, 'maxResponseBytes'),
    fetch: options.fetch,
    // Checked under the rule of every header (./headers.ts): one the SDK owns is refused, as at a call's level.
    headers: options.headers === undefined ? defaultHeaders() : clientHeaders(checkHeaders(options.headers, 'headers')),
    logger: levelledLogger(options.logger, level),
    quiet: level === 'off' || level === 'error',
    hooks: options.hooks === undefined ? NO_HOOKS : Object.freeze({ ...options.hooks }),
    preflight,
    onWarning: options.onWarning,
    journal: options.journal,
  });
  return { apiKey: typeof apiKey === 'string' ? apiKey.trim() : apiKey, resolved };
}
