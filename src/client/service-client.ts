import type { AnswerInfo } from '../errors/answer.js';
import { ValidationError, validationIssue } from '../errors/validation-error.js';
import { callUserCallback } from '../internal/callback.js';
import { describeValue } from '../internal/describe.js';
import { lazyPart } from '../internal/lazy.js';
import { checkModel, type ModelCheck } from '../model/check.js';
import type { EwayBillModel } from '../model/schemas.js';
import { sharedRateLimiter } from '../throttle/process-rate-limiter.js';
import type { QueueStatus } from '../throttle/queue-options.js';
import { createEwayBills } from './batch.js';
import type { EwayBillBatchItem, EwayBillBatchOptions, EwayBillBatchResult } from './batch-types.js';
import { budgetName, registerBudget } from './budget.js';
import { type AttemptJournal, type HttpMethod, makeCall } from './call.js';
import { Credentials } from './credentials.js';
import { checkHeaders } from './headers.js';
import type { PendingDocument, RecoverResult } from './journaled.js';
import { DEFAULT_RESEND_DELAY_MS, JOURNALED } from './once.js';
import {
  type CallOptions,
  type RequestOptions,
  type ResolvedOptions,
  resolveCallOptions,
  resolveOptions,
  type ServiceClientOptions,
} from './options.js';
import { checkSchema, HTTP_METHODS, jsonBody, type QueryValue, type StandardSchemaV1 } from './request-input.js';
import {
  type EwayBillResult,
  ewayBillNumberIn,
  type RequestResult,
  type ResponseMeta,
  responseMeta,
  withMeta,
} from './results.js';
import { defaultRetryPolicy } from './retry.js';
import { checkRoute } from './route.js';
import { startTransport, Transport, type TransportParts } from './transport.js';

export type {
  EwayBillAnsweredResult,
  EwayBillJournalResult,
  EwayBillResult,
  RequestResult,
  ResponseMeta,
} from './results.js';

/** Options of {@link ServiceClient.request}: those of every call, and what the request carries. */
export interface ServiceRequestOptions<T = unknown> extends Omit<RequestOptions, 'retryWhenMaybeSent'> {
  /** The body, sent as JSON. A value JSON cannot hold (a BigInt, a cycle, `NaN`) is a `ValidationError`. */
  body?: unknown;
  /** Query parameters, encoded as URL search parameters; `undefined` values are left out, arrays repeat. */
  query?: Readonly<Record<string, QueryValue>> | undefined;
  /** Headers of this request. `Authorization`, `Content-Type` and `Accept` cannot be set. */
  headers?: Readonly<Record<string, string>> | undefined;
  /**
   * A Standard Schema (a zod, valibot or arktype schema) the answer must pass; it also types the result. A 2xx
   * answer that fails it rejects with `UnexpectedResponseError` (the service acted; its answer has another shape).
   */
  schema?: StandardSchemaV1<T> | undefined;
  /**
   * Also retry a POST or PATCH after failures after which the service may have acted (a timeout, a reset after
   * sending, a 5xx). GET, PUT and DELETE are idempotent and are retried after those anyway (unless
   * `idempotent: false`).
   * @default false
   */
  retryWhenMaybeSent?: boolean | undefined;
  /**
   * The URL template of `path`, with each variable part as a `{placeholder}`: it names the call's span
   * (`GET /v2/doc/{id}`) and is its `url.template` and the metrics' label, so that telemetry has one name per route,
   * not one per document. Without it the span is named by the method alone and has no `url.template`.
   * @default undefined
   * @throws {TypeError} when it is not a template of `path`.
   * @example
   * await client.request('GET', `/v2/doc/${id}`, { route: '/v2/doc/{id}' });
   */
  route?: string | undefined;
  /**
   * `false` never sends this call again after a failure after which the service may have acted (a timeout, a reset
   * after sending, a 502/503/504), though its method is idempotent: for a `PUT` or `DELETE` with side effects (a
   * counter, a notification). It is still resent when the service certainly did not act (a 429, a refused
   * connection), and `retryWhenMaybeSent: true` still asks for every resend. `true` is what GET, PUT and DELETE are
   * already; it cannot make a POST or PATCH resent (a `TypeError`: use `retryWhenMaybeSent`).
   * `lastResponse.attempts` says how many requests of the call may have reached the service.
   * @default true for GET, PUT and DELETE; false for POST and PATCH
   * @example await client.request('PUT', `/v2/doc/${id}/notify`, { body, idempotent: false });
   */
  idempotent?: boolean | undefined;
}

/**
 * The client of the invoicing service. Create one per API key (per company) and reuse it; clients of the same key
 * share the key's rate limit of 1 request per second anywhere in the process.
 *
 * @example
 * import { ServiceClient } from 'invoicing-service-sdk';
 * const client = new ServiceClient(); // reads SERVICE_API_KEY and SERVICE_BASE_URL
 * const { message } = await client.createEwayBill(invoice.hash_id, model);
 *
 * @throws {TypeError} when the API key or base URL is missing, or an option is invalid.
 */
export class ServiceClient {
  readonly #options: ResolvedOptions;
  /** Sends every call of this client: ky, fetch, headers, limiter, the key, hooks, logger and telemetry. */
  readonly #transport: Transport;
  /** The key of each attempt; the journal's `pendingDocuments()` filters by a fixed key's hash. */
  readonly #credentials: Credentials;

  constructor(options: ServiceClientOptions = {}) {
    installInspect();
    const { apiKey, resolved } = resolveOptions(options);
    this.#options = resolved;
    registerBudget(this, options.rateLimitKey === undefined ? [apiKey] : [apiKey, budgetName(options.rateLimitKey)]);
    this.#credentials = new Credentials(apiKey, options.rateLimitKey);
    // createEwayBillOnce (once.ts) asks whether the client waits out an uncertain earlier request by itself. An own
    // property, not a computed member of the class: a class with a computed key is not tree-shakable.
    if (resolved.journal) Object.defineProperty(this, JOURNALED, { value: true });
    this.#transport = new Transport({
      headers: resolved.headers,
      fetch: resolved.fetch ?? globalFetch,
      runtimeFetch: resolved.fetch === undefined,
      limiter: options.rateLimiter ?? sharedRateLimiter(),
      credentials: this.#credentials,
      hooks: resolved.hooks,
      logger: resolved.logger,
      retryPolicy: defaultRetryPolicy,
    });
  }

  /** The base URL requests go to, without a trailing slash. */
  get baseUrl(): string {
    return this.#options.baseUrl;
  }

  /**
   * The queue of this client's key at its rate limit (1 request per second): how many calls wait per priority, when
   * the next may start, and when a call of each priority made now is expected to start if no call ahead of it leaves
   * (epoch ms). With a `rateLimitKey` the key has two budgets: the one whose queue starts a `'normal'` call later is
   * reported. On `createRedisRateLimiter` every process's waiters count. A partner's own `rateLimiter` that does not
   * tell its queue reports none waiting.
   * @throws {TypeError} the key function returned an unusable key (as a call would).
   * @example
   * const { waiting, estimatedStartAt } = await client.queueStatus();
   * if (estimatedStartAt.high - Date.now() > 5000) showBusy(waiting);
   */
  queueStatus(): Promise<QueueStatus> {
    return this.#transport.queueStatus();
  }

  /**
   * Generates an e-way bill for an existing document: `POST {baseUrl}/v2/ewaybill/{docHashId}`.
   *
   * The model is checked locally first; a model that breaks the spec is never sent and uses no rate-limit slot.
   * The call then waits for the key's rate-limit slot, sends, and maps any error answer to a typed error.
   *
   * @param docHashId The `hash_id` of the document, sent as one path segment.
   * @param model The e-way bill's details.
   * @throws {ValidationError} the model or docHashId breaks the spec, or (with `preflight: 'strict'`) the portal's
   *   well-known rules; nothing was sent.
   * @throws {UnauthorizedError | ForbiddenError | InvalidHashIdError | PortalError | BadRequestError | RateLimitError | ServerError | ApiError}
   *   the service answered with an error.
   * @throws {UnexpectedResponseError} a 2xx whose body is empty, not JSON or longer than `maxResponseBytes`: the bill
   *   may exist (`mayHaveSucceeded: true`).
   * @throws {TimeoutError | ConnectionError} no answer; see `mayHaveSucceeded`.
   * @throws {AbortedAfterSendError} `options.signal` aborted after the request may have been sent: the bill may exist.
   * @throws {DOMException} an `AbortError` when `options.signal` aborted before anything was sent.
   * @example
   * const result = await client.createEwayBill('doc_hash_id', {
   *   supply_type: 'Outward', sub_supply_type: 'Supply', transporter_doc_date: '21-11-2026', transport_mode: 'Road',
   *   vehicle_type: 'Regular', vehicle_number: 'MH12AB1234', // by road the portal wants a vehicle (or a transporter id)
   *   dispatch_from: { addr_id: 1, address_line1: '12 MG Road', address_line2: '', city: 'Pune', state: 'MAHARASHTRA', country: 'India', pincode: '411001' },
   *   dispatch_to: { addr_id: 2, address_line1: '4 Park St', address_line2: '', city: 'Kolkata', state: 'WEST BENGAL', country: 'India', pincode: '700016' },
   * });
   */
  createEwayBill(docHashId: string, model: EwayBillModel, options?: RequestOptions): Promise<EwayBillResult> {
    // Not an async function: the promise it returns is the send's own, not a second one resolved with it, so a call
    // waiting for its slot holds one chain of promises, not two (issue 29, item 8). A throw is still a rejection.
    try {
      const callOptions = resolveCallOptions(options, this.#options, 'createEwayBill');
      // Checked now, synchronously: a model the caller changes after the call is not what is sent. Once the body is
      // built, a call queued for its slot holds that body, not the checked copy too.
      const data = this.#check(docHashId, model);
      // The transport's one start, on a process's first calls (they wait for it in the order they were made).
      const started = startTransport();
      if (started instanceof Promise) {
        return started.then((ready) => this.#createChecked(ready, docHashId, data, callOptions));
      }
      return this.#createChecked(started, docHashId, data, callOptions);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** `createEwayBill` once the model is checked and the transport started: the preflight, the body, the send. */
  #createChecked(
    ready: TransportParts,
    docHashId: string,
    data: EwayBillModel,
    callOptions: CallOptions,
  ): Promise<EwayBillResult> {
    if (this.#options.preflight !== 'off') this.#preflight(ready.preflight, data, docHashId);
    const body = JSON.stringify(data);
    if (this.#options.journal) {
      return this.#journaled('createEwayBill').then((journaled) => journaled.create(docHashId, body, callOptions));
    }
    return this.#sendEwayBill(docHashId, body, callOptions, undefined, ready);
  }

  /**
   * Sends an e-way bill's body (checked, or recorded by the journal) through the transport. Not an async function: a
   * call queued for its slot holds no frame of it (issue 29, item 8).
   */
  #sendEwayBill(
    docHashId: string,
    body: string,
    callOptions: CallOptions,
    journal: AttemptJournal | undefined,
    ready: TransportParts,
  ): Promise<EwayBillResult> {
    const call = makeCall(
      {
        method: 'POST',
        // Not checked as a caller's path: the id is one encoded segment ('a/b' is sent as 'a%2Fb'), made into the
        // URL when it is read (./call.ts).
        baseUrl: this.#options.baseUrl,
        route: '/v2/ewaybill/{doc_hash_id}',
        body,
        docHashId,
        success: 'success-flag',
        journal,
      },
      callOptions,
    );
    return this.#transport.send(call, ready, ewayBillResult);
  }

  /**
   * Calls any endpoint of the service, under the same key, rate-limit budget, retries, typed errors, hooks and logger
   * as `createEwayBill`. Resolves with the answer's parsed JSON body (checked and typed by `options.schema` when
   * given), read whole up to `maxResponseBytes` (10 MiB by default); an object answer also has a non-enumerable
   * `lastResponse` (status, headers, request id). Resolves `undefined` only for a 2xx with an empty body (a 204): any
   * other 2xx body that is not JSON, or is longer than `maxResponseBytes`, rejects with `UnexpectedResponseError`.
   *
   * The spec shows only the e-way bill operation's payloads: for the others (`POST /v2/doc`, `GET /v2/product/list`)
   * the SDK does not pretend to know them. Type the answer with `T` or, better, check it with `schema`.
   *
   * @param method `'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'`. GET, PUT and DELETE are retried after a timeout, a
   *   reset after sending, or a 502/503/504; POST and PATCH are never resent after a possible send (unless
   *   `retryWhenMaybeSent`).
   * @param path Relative to `baseUrl`, starting with `/`: `'/v2/doc'`. The key never leaves the base URL: an absolute
   *   URL, `//host`, a backslash, `.`/`..` segments in any form a normalising back-end would read as navigation
   *   (percent-encoded, double-encoded, overlong UTF-8, full-width, `..;`) are refused.
   * @throws {TypeError} a bad method, path or option, a GET with a body, or a `route` that is not a template of `path`; nothing was sent.
   * @throws {ValidationError} a body JSON cannot hold; nothing was sent.
   * @throws {UnauthorizedError | ForbiddenError | PortalError | BadRequestError | RateLimitError | ServerError | ApiError}
   *   the service answered with an error.
   * @throws {UnexpectedResponseError} a 2xx answer is not JSON, is longer than `maxResponseBytes`, or failed
   *   `options.schema` (`reason` says which); the service acted on the request (`mayHaveSucceeded: true`).
   * @throws {TimeoutError | ConnectionError | AbortedAfterSendError} no answer; see `mayHaveSucceeded`.
   * @example
   * const doc = await client.request<{ hash_id: string }>('POST', '/v2/doc', { body: invoice });
   * const products = await client.request('GET', '/v2/product/list', { query: { page: 1 } });
   * // A path with an id: name its route, so that telemetry has one span name and one series for every id.
   * const one = await client.request('GET', `/v2/doc/${doc.hash_id}`, { route: '/v2/doc/{hash_id}' });
   */
  async request<T = unknown>(
    method: HttpMethod,
    path: string,
    options?: ServiceRequestOptions<T>,
  ): Promise<RequestResult<T>> {
    if (!(HTTP_METHODS as readonly unknown[]).includes(method)) {
      throw new TypeError(`request: method must be one of ${HTTP_METHODS.join(', ')}; got ${describeValue(method)}`);
    }
    const resolved = resolveCallOptions(options, this.#options, 'request');
    const callOptions = (options ?? {}) as ServiceRequestOptions<T>;
    const schema = checkSchema(callOptions.schema);
    const route = checkRoute(callOptions.route, path);
    const headers = checkHeaders(callOptions.headers, 'request: options.headers');
    const body = jsonBody(callOptions.body);
    const started = startTransport();
    const ready = started instanceof Promise ? await started : started;
    const { checkCall, resolvePath } = ready.rules;
    const idempotent = checkCall(method, callOptions.body, callOptions.idempotent);
    const url = resolvePath(this.#options.baseUrl, path, callOptions.query);
    const target = { method, url, route, body, headers, success: 'any-2xx', idempotent } as const;
    if (!schema) {
      const answer = await this.#transport.send(makeCall(target, resolved), ready);
      return withMeta(answer.json as RequestResult<T>, metaOfAnswer(answer));
    }
    const checkAnswer = ready.rules.answerChecker(schema, method, path);
    // The schema is checked in the send path, before the call's span ends: a mismatch fails the call's span too.
    let value: unknown;
    const check = async (answer: AnswerInfo) => {
      value = await checkAnswer(answer);
    };
    const answer = await this.#transport.send(makeCall({ ...target, check }, resolved), ready);
    return withMeta(value as RequestResult<T>, metaOfAnswer(answer));
  }

  /**
   * Creates the e-way bills of many documents of this client's company, one request per second (the key's limit):
   * `createEwayBills(this, items, options)`. Each item settles on its own; results come in input order.
   * @throws {TypeError} before anything is sent, when `items` or `options` are malformed.
   * @example
   * const results = await client.createEwayBills(invoices.map((i) => ({ docHashId: i.hash_id, model: toModel(i) })), {
   *   onProgress: ({ done, total, etaMs }) => console.log(`${done}/${total}, ${Math.ceil(etaMs / 1000)} s left`),
   * });
   */
  createEwayBills(
    items: Iterable<Omit<EwayBillBatchItem, 'client'>>,
    options?: EwayBillBatchOptions,
  ): Promise<EwayBillBatchResult[]> {
    return createEwayBills(this, items, options);
  }

  /** The client's journaled calls (src/client/journaled.ts, loaded on first use). */
  async #journaled(method: string) {
    const { journal, baseUrl, logger } = this.#options;
    if (!journal) throw new TypeError(`${method} needs a journal: new ServiceClient({ journal })`);
    const { journaledClient } = journaledPart.value ?? (await journaledPart.load());
    return journaledClient({
      journal,
      baseUrl,
      logger,
      key: this.#credentials.fixed?.key,
      resendDelayMs: DEFAULT_RESEND_DELAY_MS,
      // The transport was started by the call (recover()'s calls start it here).
      send: async (docHashId, body, options, hooks) =>
        this.#sendEwayBill(docHashId, body, options, hooks, await startTransport()),
    });
  }

  /**
   * The documents whose outcome the journal does not know: a request may have been sent (by this process or one that
   * crashed) and nothing says what came of it. Records of this base URL, and of this client's key when it is a fixed
   * key (a key function's records are all listed). `recover()` resolves them.
   * @throws {TypeError} the client has no journal.
   * @throws {JournalError} the journal could not be read.
   * @example
   * for (const doc of await client.pendingDocuments()) console.log(doc.docHashId, new Date(doc.sentAt));
   */
  async pendingDocuments(): Promise<PendingDocument[]> {
    return (await this.#journaled('pendingDocuments')).pendingDocuments();
  }

  /**
   * Resolves each pending document (see `pendingDocuments()`) from its recorded body, one after the other: waits until
   * its earlier request can no longer be in flight, sends the recorded body, and takes a 604 as `'already-generated'`.
   * Call it at start-up. Resolves with one result per document; never rejects for one document's failure.
   * @throws {TypeError} the client has no journal, or an option is invalid.
   * @throws {JournalError} the journal could not be read.
   * @example
   * for (const r of await client.recover()) if (r.status === 'rejected') alert(r.docHashId, r.error);
   */
  async recover(options?: Pick<RequestOptions, 'signal' | 'timeout' | 'maxRetries'>): Promise<RecoverResult[]> {
    const callOptions = resolveCallOptions(options, this.#options, 'recover');
    return (await this.#journaled('recover')).recover(callOptions);
  }

  /**
   * Checks the model and the docHashId (throws a ValidationError listing every problem) and returns the checked copy.
   * Synchronous, so a model the caller changes after the call is not what is sent; the preflight reads the copy.
   */
  #check(docHashId: string, model: EwayBillModel): EwayBillModel {
    const parsed = parseModel(model);
    const idProblem = docHashIdProblem(docHashId);
    if (parsed instanceof ValidationError) {
      if (!idProblem) throw parsed;
      throw new ValidationError('e-way bill request', [
        validationIssue(['docHashId'], `docHashId ${idProblem}`),
        ...parsed.issues,
      ]);
    }
    if (idProblem || !parsed.success) {
      const issues = parsed.success ? [] : ValidationError.fromZodError(parsed.error, 'e-way bill model').issues;
      const all = idProblem ? [validationIssue(['docHashId'], `docHashId ${idProblem}`), ...issues] : issues;
      const subject = !idProblem ? 'e-way bill model' : parsed.success ? 'docHashId' : 'e-way bill request';
      throw new ValidationError(subject, all);
    }
    return parsed.data;
  }

  /** Runs the portal-rule preflight in the configured mode (not `'off'`): warnings, or a ValidationError. */
  #preflight(rules: TransportParts['preflight'], model: EwayBillModel, docHashId: string): void {
    const { preflight, onWarning, logger, quiet } = this.#options;
    const { preflightEwayBill, preflightError } = rules;
    const findings = preflightEwayBill(model, { docHashId });
    if (preflight === 'strict') {
      const error = preflightError(findings);
      if (error) throw error;
      return;
    }
    for (const finding of findings) {
      // Without a callback or a logger, warnings still show: a silent 'warn' mode would warn nobody.
      if (onWarning) callUserCallback('onWarning', () => onWarning(finding), [], logger ?? console);
      else if (quiet && !logger) continue;
      else {
        const sink = logger ?? console;
        const line = `invoicing-service-sdk: preflight: ${finding.field}: ${finding.message}`;
        callUserCallback('logger.warn', () => sink.warn(line, { ...finding }), [], undefined);
      }
    }
  }

  /** Inspection output without the API key. */
  toJSON(): Record<string, unknown> {
    const { baseUrl, timeout, maxRetries } = this.#options;
    return { baseUrl, apiKey: '[redacted]', timeout, maxRetries };
  }
}

/** The global fetch, looked up at each call (so msw and other patches apply): one function for every client. */
const globalFetch: typeof globalThis.fetch = (resource, init) => globalThis.fetch(resource, init);

/** The journal's flow (issue 31), imported on the first call of a client with a journal: see journaled.ts. */
const journaledPart = /* @__PURE__ */ lazyPart(() => import('./journaled.js'));

/** What `createEwayBill` resolves to: the success answer's message, its e-way bill number, its `lastResponse`. */
function ewayBillResult(answer: AnswerInfo): EwayBillResult {
  const { message } = answer.json as { message?: unknown };
  // A service that echoes the key in its message never hands it back in a result (as in errors).
  const text = typeof message === 'string' ? successRedact(answer)(message) : '';
  const ewayBillNumber = ewayBillNumberIn(text);
  const result = ewayBillNumber ? { success: true, message: text, ewayBillNumber } : { success: true, message: text };
  return withMeta(result as EwayBillResult, metaOfAnswer(answer));
}

/**
 * The status, headers and request id of an answer, its headers with the key redacted. Made with the result, not when
 * first read: a getter would keep the answer's `Headers` (and its list) alive with every result a caller holds, which
 * is more than this record (docs/benchmarks.md, "Issue 29, item 8: third session").
 */
function metaOfAnswer(answer: AnswerInfo): ResponseMeta {
  return responseMeta(answer, successRedact(answer));
}

/**
 * What replaces the key in what a successful call returns: every copy of a key long enough that a copy can only be
 * an echo (see `Redactor.distinctive`); nothing for a short one, whose letters a bill's message may hold by chance.
 */
function successRedact(answer: AnswerInfo): (text: string) => string {
  return answer.redact?.distinctive ? answer.redact.text : String;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with a docHashId, or `undefined`. It is sent as one path segment, so it must be a usable one. */
function docHashIdProblem(docHashId: unknown): string | undefined {
  if (typeof docHashId !== 'string') return `must be a string; got ${docHashId === null ? 'null' : typeof docHashId}`;
  if (docHashId.trim() === '') return 'must not be empty';
  if (LONE_SURROGATE.test(docHashId))
    return 'must be well-formed text (it holds a lone UTF-16 surrogate, which no URL can carry)';
  if (docHashId === '.' || docHashId === '..') {
    return "cannot be '.' or '..' (URLs treat them as path navigation, even when encoded)";
  }
  return undefined;
}

/** The schema's verdict on a model; a model that cannot even be read (a getter or a Proxy that throws) is a failure too. */
function parseModel(model: unknown): ModelCheck | ValidationError {
  try {
    return checkModel(model);
  } catch (error) {
    const why = error instanceof Error ? error.message : describeValue(error);
    return new ValidationError('e-way bill model', [validationIssue([], `could not be read: ${why.slice(0, 200)}`)]);
  }
}

/**
 * Gives `util.inspect` a one-line view of a client (without the key), installed on the first construction rather than
 * as a computed method in the class body: a class with a computed key is not tree-shakable, so every bundle that
 * imported anything from the SDK used to carry the whole client.
 */
function installInspect(): void {
  const inspect = Symbol.for('nodejs.util.inspect.custom');
  if (Object.hasOwn(ServiceClient.prototype, inspect)) return;
  Object.defineProperty(ServiceClient.prototype, inspect, {
    value(this: ServiceClient): string {
      return `ServiceClient ${JSON.stringify(this.toJSON())}`;
    },
    configurable: true,
    writable: true,
  });
}
