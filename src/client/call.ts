// One call, one shape: what a public method of the client builds once, its options checked and resolved, and the only
// thing the transport (./transport.ts) accepts. Nothing downstream reads the caller's options again.
import type { AnswerInfo, SuccessRule } from '../errors/answer.js';
import type { RequestSummary } from '../errors/api-error.js';
import { withoutQueryValues } from '../internal/query-values.js';
import type { Credential } from './credentials.js';
import type { HeaderRecord } from './headers.js';
import type { CallOptions } from './options.js';

/** The HTTP methods a call can use. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Made by {@link makeCall} alone: internal code accepts a `Call`, never a look-alike object. */
declare const MADE: unique symbol;

/**
 * One call, from the client's method to its last attempt. Built once ({@link makeCall}); read-only.
 *
 * A per-call option that reaches the rate limiter (a priority, a longest queue wait) is one more field here, set from
 * `CallOptions` in {@link makeCall} and read where the transport asks the limiter (`Transport.#attempt`).
 */
export interface Call extends CallOptions {
  readonly [MADE]: true;
  readonly method: HttpMethod;
  /** The absolute URL, query included. */
  readonly url: string;
  /** The method and URL, as errors carry them (never the headers). */
  readonly request: RequestSummary;
  /** The URL template, for telemetry: `'/v2/ewaybill/{doc_hash_id}'`, `request`'s `route`, or `undefined`. */
  readonly route: string | undefined;
  /** The JSON body, or `undefined` for none. */
  readonly body: string | undefined;
  /** The call's own headers, checked (./headers.ts), or `undefined`. */
  readonly headers: HeaderRecord | undefined;
  /** The document the call is for, when there is one. */
  readonly docHashId: string | undefined;
  /**
   * Whether sending it twice has the effect of sending it once: its method is GET, PUT or DELETE and the caller did
   * not pass `idempotent: false`.
   */
  readonly idempotent: boolean;
  /** What counts as the success answer. */
  readonly success: SuccessRule;
  /**
   * Checks the success answer before the call ends (`request`'s schema): what it throws is the call's error, as it is
   * (the service answered 2xx), and the call's span ends with it.
   */
  readonly check: ((answer: AnswerInfo) => Promise<void>) | undefined;
  /** The client's journal around each attempt (issue 31; ./journaled.ts): `createEwayBill` on a client with a journal. */
  readonly journal: AttemptJournal | undefined;
}

/**
 * A journal's hooks around one attempt (`Transport.#attempt`): `before` once its slot is granted and before the
 * request can leave (it records the intent; if it throws, nothing is sent and the call ends with its error), `after`
 * once the attempt settled (with its answer or error), only when `before` succeeded. `after` never throws.
 */
export interface AttemptJournal {
  before(credential: Credential): Promise<void>;
  after(settled: unknown): Promise<void>;
}

/** What a public method says of its call, besides the options. */
export interface CallTarget {
  readonly method: HttpMethod;
  /**
   * The absolute URL, query included; or, with {@link CallTarget.baseUrl}, `undefined`: the URL is then made when it
   * is read (see there).
   */
  readonly url?: string | undefined;
  /**
   * For a call about one document (`createEwayBill`): the client's base URL. The call's URL is `route` under it, its
   * `{doc_hash_id}` the document's id as one encoded segment (`'a/b'` is sent as `'a%2Fb'`), made when first read:
   * a call queued for its slot holds no URL of its own (issue 29, item 8).
   */
  readonly baseUrl?: string | undefined;
  readonly route: string | undefined;
  readonly body: string | undefined;
  readonly success: SuccessRule;
  readonly headers?: HeaderRecord | undefined;
  readonly docHashId?: string | undefined;
  /** `false`: never resent after a possible send, whatever the method (`request`'s `idempotent: false`). */
  readonly idempotent?: false | undefined;
  readonly check?: ((answer: AnswerInfo) => Promise<void>) | undefined;
  readonly journal?: AttemptJournal | undefined;
}

const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'PUT', 'DELETE']);

/**
 * A {@link Call}: one object of one shape (every field set in the constructor, in one order, so the engine keeps them
 * all in the object itself), with the URL and the request summary made when first read, not at construction (issue 29, item 8:
 * a call queued for its slot holds what it needs to be sent).
 */
class CallRecord {
  /** The absolute URL, or the base URL of a document's call (`#templated`). */
  readonly #at: string;
  readonly #templated: boolean;
  declare readonly method: HttpMethod;
  declare readonly route: string | undefined;
  declare readonly body: string | undefined;
  declare readonly headers: HeaderRecord | undefined;
  declare readonly docHashId: string | undefined;
  declare readonly journal: AttemptJournal | undefined;
  declare readonly idempotent: boolean;
  declare readonly success: SuccessRule;
  declare readonly check: ((answer: AnswerInfo) => Promise<void>) | undefined;

  constructor(target: CallTarget, options: CallOptions) {
    const { method } = target;
    this.#templated = target.url === undefined;
    this.#at = target.url ?? (target.baseUrl as string);
    // Assigned one by one: the engine sizes the object from the constructor's assignments.
    this.method = method;
    this.route = target.route;
    this.body = target.body;
    this.headers = target.headers;
    this.docHashId = target.docHashId;
    this.journal = target.journal;
    this.idempotent = target.idempotent !== false && IDEMPOTENT_METHODS.has(method);
    this.success = target.success;
    this.check = target.check;
    // Every resolved option, as `resolveCallOptions` made it (it holds nothing else).
    Object.assign(this, options);
  }

  // Made on the first read (once the call is granted its slot, or by telemetry and `onQueued`), then kept: a call is
  // read several times per attempt (ky, the watch, every event and error), and making them each time cost 3 µs a call.
  #url: string | undefined;
  #request: RequestSummary | undefined;

  get url(): string {
    if (this.#url === undefined) {
      const segment = this.#templated ? encodeURIComponent(this.docHashId as string) : '';
      this.#url = this.#templated
        ? this.#at + (this.route as string).replace('{doc_hash_id}', () => segment)
        : this.#at;
    }
    return this.#url;
  }

  get request(): RequestSummary {
    // What errors and hooks carry (and a partner logs): the query's names, never its values (a GSTIN, a token).
    this.#request ??= { method: this.method, url: withoutQueryValues(this.url) };
    return this.#request;
  }
}

/** The call of a public method: its target and its options (checked and resolved once, by `resolveCallOptions`). */
export function makeCall(target: CallTarget, options: CallOptions): Call {
  return new CallRecord(target, options) as unknown as Call;
}
