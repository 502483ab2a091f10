// OpenTelemetry for the client's calls, through the optional peer `@opentelemetry/api`. The send path calls these
// functions; without the peer (or before it loaded, or with no provider registered) they cost a branch and do nothing.
// The contract below is fixed; the implementation is filled in by the observability work (issue 19).

/** What a call is, at its start. Never the API key, never the body. */
export interface CallStart {
  /** `'POST'`, `'GET'`, ... */
  readonly method: string;
  /** The URL template, for example `'/v2/ewaybill/{doc_hash_id}'` (the span's name is `{method} {route}`). */
  readonly route: string;
  /** The URL the call goes to (the base URL's origin; no credentials can be in it). */
  readonly url: string;
  /** The document the call is for, when there is one. */
  readonly docHashId?: string | undefined;
  /** A short hash of the rate-limit budget (never the key), for metric labels. */
  readonly budgetHash: string;
}

/** How one attempt ended. */
export interface AttemptEnd {
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Milliseconds the attempt waited for its rate-limit slot. */
  readonly queuedMs: number;
  /** Milliseconds from sending to the whole answer read (or the failure). */
  readonly durationMs: number;
  /** The HTTP status, when an answer arrived. */
  readonly status?: number | undefined;
  /** The SDK error code the attempt ended in, when it failed. */
  readonly code?: string | undefined;
}

/** How the whole call ended. */
export interface CallEnd {
  /** The last answer's status, when one arrived. */
  readonly status?: number | undefined;
  /** The error the call rejects with (an SDK error, an AbortError), or `undefined` on success. */
  readonly error?: unknown;
  /** How many attempts were sent after the first (`http.request.resend_count`). */
  readonly resendCount: number;
}

/** The telemetry of one call. Every method is safe to call in any order and never throws. */
export interface CallTelemetry {
  /** Runs `send` (one attempt's fetch and body read) with the call's span as the active context. */
  active<T>(send: () => Promise<T>): Promise<T>;
  /** One attempt ended (success or not). */
  attemptEnded(end: AttemptEnd): void;
  /** The call will try again after `delayMs`, because of `reason` (an SDK error code). */
  retrying(attempt: number, reason: string, delayMs: number): void;
  /** The call settled. */
  end(end: CallEnd): void;
}

/** Loads the optional peer once; the client awaits it before its first send. Never rejects. */
export function prepareTelemetry(): Promise<void> {
  return Promise.resolve();
}

/** The telemetry of a call, or `undefined` when there is nothing to record to. */
export function startCall(_start: CallStart): CallTelemetry | undefined {
  return undefined;
}
