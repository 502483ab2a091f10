/** The base URL the mock answers on when none is given: a reserved `.test` host, so nothing real is ever reached. */
export const DEFAULT_MOCK_BASE_URL = 'https://mock.invoicing-service.test/api/partner';

/** Where and how the mock posts webhook events. */
export interface WebhookTarget {
  /** The receiver's URL. Unlike the real service, http and loopback addresses are allowed. */
  url: string;
  /** The webhook secret the `X-Signature` HMAC is keyed with. Never logged. */
  secret: string;
  /**
   * Milliseconds to wait for the receiver before giving up (the spec asks receivers to answer within 10 s).
   * @default 10000
   */
  timeoutMs?: number | undefined;
  /**
   * The fetch used to post, for example to route through msw.
   * @default globalThis.fetch
   */
  fetch?: typeof globalThis.fetch | undefined;
}

/** Options of `createMockService`. */
export interface MockServiceOptions {
  /**
   * The base URL the msw handlers answer on, including the partner path prefix. Its path (`/api/partner`) is also
   * the prefix of the real server started by `startMockServer`.
   * @default 'https://mock.invoicing-service.test/api/partner'
   */
  baseUrl?: string | undefined;
  /**
   * The rate limit: 1 request per second per API key, measured between arrivals. `false` turns it off
   * (handy in unit tests that send many requests with one key); `{ intervalMs }` changes the interval.
   * @default true
   */
  rateLimit?: boolean | { intervalMs?: number | undefined } | undefined;
  /**
   * The clock, in milliseconds, used for the rate limit and the request log. Inject one to test the rate limit without waiting.
   * @default () => performance.timeOrigin + performance.now()
   */
  now?: (() => number) | undefined;
  /**
   * Whether the default company is connected to the e-way bill portal.
   * @default true
   */
  portalConnected?: boolean | undefined;
  /**
   * The default company's API key, instead of a fresh random one: a key kept across restarts (the CLI's
   * `mock-server --api-key`). It must be shaped like the service's keys (a JWT: `header.payload.signature`, base64url).
   * @default a new random key
   */
  apiKey?: string | undefined;
  /** Where `sendDocumentEvent`, `sendInventoryEvent` and `emitWebhook` post when no target is passed to them. */
  webhook?: WebhookTarget | undefined;
  /** Called once per answered request, with its log entry (it never holds the API key). The CLI logs with it. */
  onRequest?: ((entry: RecordedRequest) => void) | undefined;
}

/**
 * A scripted fault, used up by the next request that arrives (whatever that request carries).
 * Give one of `portalError`, `status`, `html`, `drop`, `truncate`, `emptyBody`, `loseAnswer`; `delayMs` may be added
 * to any of them, or given alone to slow down an otherwise normal answer.
 * @example
 * service.failNext({ loseAnswer: true }); // the bill is generated, the answer never arrives: ConnectionError
 * service.failNext({ loseAnswer: true, delayMs: 5_000 }); // with a client timeout under 5 s: TimeoutError
 */
export interface MockFault {
  /**
   * Answer `PORTAL_ERROR_{n}` (HTTP 400) instead of generating, once the request has passed authentication,
   * the rate limit and validation (as the real portal is reached only then).
   */
  portalError?: number | undefined;
  /** Answer this HTTP status with the error envelope (`INTERNAL_SERVER_ERROR` for a 5xx), or with an HTML page / empty body. */
  status?: number | undefined;
  /** Answer an HTML error page, as a proxy in front of the service would. @default status 502 */
  html?: boolean | undefined;
  /** Drop the connection without an answer (msw: a network error; the real server destroys the socket). */
  drop?: boolean | undefined;
  /**
   * Handle the request in full (authentication, rate limit, validation, document, portal: the e-way bill is generated
   * and recorded, as `getDocument` shows), then drop the connection instead of answering, as when the answer is lost
   * on the way back. The client sees a `ConnectionError` with `mayHaveSucceeded: true`, and the log shows the request
   * with `status: undefined`. With `delayMs` the wait comes after generating, so a client timeout shorter than it sees
   * a `TimeoutError` while the bill exists. A request that fails (say, a 401) loses its error answer the same way.
   * It cannot be combined with `portalError`, `status`, `html`, `drop`, `truncate` or `emptyBody`.
   */
  loseAnswer?: boolean | undefined;
  /** Send the headers and half of a JSON body, then cut the connection. */
  truncate?: boolean | undefined;
  /** Answer with an empty body. @default status 200 */
  emptyBody?: boolean | undefined;
  /**
   * Wait this many milliseconds first (with `loseAnswer`: after generating, before dropping).
   * Cut short (as a dropped connection) when the service is closed.
   */
  delayMs?: number | undefined;
  /** The `error_code` of a `status` answer. @default 'INTERNAL_SERVER_ERROR' for a 5xx, else 'SCRIPTED_FAULT' */
  errorCode?: string | undefined;
  /** The `message` of a `portalError` or `status` answer. */
  message?: string | undefined;
}

/** One request as it arrived, for assertions. Never holds the API key. */
export interface RecordedRequest {
  /** 1 for the first request the service received. */
  readonly seq: number;
  readonly method: string;
  /** The path, including the partner prefix, as received. */
  readonly path: string;
  /** The `doc_hash_id` path parameter of a create-e-way-bill request, decoded. */
  readonly docHashId: string | undefined;
  /** Request headers, lower-case names; `authorization` is replaced by `'Bearer [redacted]'` (or `'[redacted]'`). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The body parsed as JSON, or the raw text when it is not JSON, or `undefined` when empty. To bound the mock's
   * memory, a body over 64 KiB of text is kept as the text of its first 65,536 characters (`bodyKept: 'truncated'`),
   * and only the newest 200 requests keep a body: an older one has `body: undefined` (`bodyKept: 'evicted'`).
   */
  readonly body: unknown;
  /** The size of the body as received, in bytes (UTF-8), whatever the log kept of it; 0 when empty. */
  readonly bodyBytes: number;
  /**
   * What `body` holds: `'whole'` the whole body (or `undefined` for none), `'truncated'` the text of its start,
   * `'evicted'` nothing any more (`undefined`), as 200 newer requests have arrived since.
   */
  readonly bodyKept: 'whole' | 'truncated' | 'evicted';
  /** The public id of the API key that authenticated (for example `'key_1'`); never the key itself. */
  readonly keyId: string | undefined;
  /** The company of that key. */
  readonly companyId: string | undefined;
  /** Arrival time, from the `now` clock, in milliseconds. */
  readonly receivedAt: number;
  /** The answered status; `undefined` when the connection was dropped or cut. */
  readonly status: number | undefined;
  /** The answered `error_code`, when there was one. */
  readonly errorCode: string | undefined;
  /** The scripted fault that shaped the answer, when there was one. */
  readonly fault: Readonly<MockFault> | undefined;
}

/** A company of the mock: it owns keys and documents, and may or may not be connected to the portal. */
export interface MockCompanyOptions {
  /** Its id. @default a generated `company_{n}` */
  id?: string | undefined;
  /** Whether it is connected to the e-way bill portal. @default true */
  portalConnected?: boolean | undefined;
}

/** What a new API key may do. */
export interface MockApiKeyOptions {
  /** The company the key belongs to. @default the default company (`service.companyId`) */
  companyId?: string | undefined;
  /** Whether the key may create e-way bills; `false` makes that answer 401 FORBIDDEN. @default true */
  canCreateEwayBill?: boolean | undefined;
}

/** A new document of the mock. */
export interface MockDocumentOptions {
  /** Its hash id (the `doc_hash_id` of the path). @default a random `doc_…` id */
  hashId?: string | undefined;
  /** The company it belongs to. @default the default company (`service.companyId`) */
  companyId?: string | undefined;
}

/** An e-way bill the mock generated. */
export interface MockEwayBill {
  /** A 12-digit e-way bill number. */
  readonly number: string;
  /** The `now` clock at generation. */
  readonly generatedAt: number;
  /** The body the e-way bill was generated from. */
  readonly model: unknown;
}

/** A document of the mock, and the e-way bill generated for it, if any. */
export interface MockDocument {
  readonly hashId: string;
  readonly companyId: string;
  readonly ewayBill: MockEwayBill | undefined;
}

/** What a webhook delivery by the mock gave. */
export interface WebhookDelivery {
  /** The receiver's HTTP status. */
  readonly status: number;
  /** The `event_id` sent. */
  readonly eventId: string;
  /** The exact raw body sent (the signature was computed over it). */
  readonly body: string;
  /** The `X-Signature` sent. */
  readonly signature: string;
}
