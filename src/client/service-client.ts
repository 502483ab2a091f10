import { ApiError } from '../errors/api-error.js';
import { type AnswerInfo, keptBody, mapErrorAnswer } from '../errors/map-response.js';
import { ValidationError, validationIssue } from '../errors/validation-error.js';
import { preflightError, preflightEwayBill } from '../gst/preflight.js';
import { callUserCallback } from '../internal/callback.js';
import { describeValue } from '../internal/describe.js';
import { type Redactor, redactor } from '../internal/redact.js';
import { type EwayBillModel, EwayBillModelSchema } from '../model/schemas.js';
import { sharedRateLimiter } from '../throttle/process-rate-limiter.js';
import { type RateLimiter, rateLimitKeyId } from '../throttle/rate-limiter.js';
import {
  createEwayBills,
  type EwayBillBatchItem,
  type EwayBillBatchOptions,
  type EwayBillBatchResult,
} from './batch.js';
import { registerBudget } from './budget.js';
import {
  checkRequestOptions,
  type RequestOptions,
  type ResolvedOptions,
  resolveOptions,
  resolveRetries,
  resolveTimeout,
  type ServiceClientOptions,
} from './options.js';
import { defaultRetryPolicy, type Sender, sendWithRetries } from './retry.js';
import { userAgent } from './runtime.js';

/** The answer of a successful "create e-way bill". */
export interface EwayBillResult {
  readonly success: true;
  /** The service's human-readable result message. */
  readonly message: string;
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
  readonly #apiKey: string;
  readonly #options: ResolvedOptions;
  /** The headers of every request; the ky instance that sends them is made on the first send. */
  readonly #headers: Headers;
  #senderMade: Sender | undefined;
  /** The client's `fetch` option, or the global fetch looked up at each call (so msw and other patches apply). */
  readonly #fetch: typeof globalThis.fetch;
  /** Replaces the key in what goes into errors, logs and hooks; never applied to a success answer. */
  readonly #redact: Redactor;
  readonly #limiter: RateLimiter;

  constructor(options: ServiceClientOptions = {}) {
    installInspect();
    const { apiKey, resolved } = resolveOptions(options);
    this.#apiKey = apiKey;
    this.#redact = redactor(apiKey);
    this.#options = resolved;
    this.#limiter = options.rateLimiter ?? sharedRateLimiter();
    registerBudget(this, apiKey);
    // One Headers object, so a user header spelt in another case replaces ours instead of being joined to it;
    // the three the SDK owns are set last and cannot be overridden. A User-Agent of the caller's (an ERP's name and
    // version) is added after the SDK's, so the service can still tell which SDK version sent a request.
    const headers = new Headers();
    for (const [name, value] of Object.entries(resolved.headers)) headers.set(name, value);
    const callerAgent = headers.get('User-Agent')?.trim();
    headers.set('User-Agent', callerAgent ? `${userAgent()} ${callerAgent}` : userAgent());
    headers.set('Authorization', `Bearer ${this.#apiKey}`);
    headers.set('Content-Type', 'application/json');
    headers.set('Accept', 'application/json');
    this.#headers = headers;
    this.#fetch = resolved.fetch ?? ((resource, init) => globalThis.fetch(resource, init));
  }

  /** The base URL requests go to, without a trailing slash. */
  get baseUrl(): string {
    return this.#options.baseUrl;
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
   * @throws {TimeoutError | ConnectionError} no answer; see `mayHaveSucceeded`.
   * @throws {DOMException} an `AbortError` when `options.signal` aborted.
   * @example
   * const result = await client.createEwayBill('doc_hash_id', {
   *   supply_type: 'Outward', sub_supply_type: 'Supply', transporter_doc_date: '21-11-2026', transport_mode: 'Road',
   *   dispatch_from: { addr_id: 1, address_line1: '12 MG Road', address_line2: '', city: 'Pune', state: 'MAHARASHTRA', country: 'India', pincode: '411001' },
   *   dispatch_to: { addr_id: 2, address_line1: '4 Park St', address_line2: '', city: 'Kolkata', state: 'WEST BENGAL', country: 'India', pincode: '700016' },
   * });
   */
  async createEwayBill(docHashId: string, model: EwayBillModel, options?: RequestOptions): Promise<EwayBillResult> {
    const callOptions = checkRequestOptions(options);
    // Only the URL and the body outlive this line: a queued call holds its ~1 KB body, not the parsed model too.
    const { url, body } = this.#prepare(docHashId, model);
    const answer = await sendWithRetries(this.#senderMade ?? (await this.#sender()), {
      docHashId,
      url,
      body,
      timeout: resolveTimeout(callOptions.timeout, this.#options.timeout, 'options.timeout'),
      maxRetries: resolveRetries(callOptions.maxRetries, this.#options.maxRetries, 'options.maxRetries'),
      signal: callOptions.signal,
      retryWhenMaybeSent: callOptions.retryWhenMaybeSent === true,
    });
    const { message } = answer.json as { message?: unknown };
    return { success: true, message: typeof message === 'string' ? message : '' };
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

  /** Checks the model and the docHashId (throws a ValidationError listing every problem) and builds the request. */
  #prepare(docHashId: string, model: EwayBillModel): { url: string; body: string } {
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
    this.#preflight(parsed.data, docHashId);
    const url = `${this.#options.baseUrl}/v2/ewaybill/${encodeURIComponent(docHashId)}`;
    return { url, body: JSON.stringify(parsed.data) };
  }

  /** Runs the portal-rule preflight in the configured mode: nothing, warnings, or a ValidationError. */
  #preflight(model: EwayBillModel, docHashId: string): void {
    const { preflight, onWarning, logger } = this.#options;
    if (preflight === 'off') return;
    const findings = preflightEwayBill(model, { docHashId });
    if (preflight === 'strict') {
      const error = preflightError(findings);
      if (error) throw error;
      return;
    }
    for (const finding of findings) {
      // Without a callback or a logger, warnings still show: a silent 'warn' mode would warn nobody.
      if (onWarning) callUserCallback('onWarning', () => onWarning(finding), [], logger ?? console);
      else {
        const sink = logger ?? console;
        const line = `invoicing-service-sdk: preflight: ${finding.field}: ${finding.message}`;
        callUserCallback('logger.warn', () => sink.warn(line, { ...finding }), [], undefined);
      }
    }
  }

  /** Whether an answer is the service's success answer: a 2xx whose JSON body says `success: true`. */
  static #isSuccess(answer: AnswerInfo): boolean {
    return answer.status >= 200 && answer.status < 300 && (answer.json as { success?: unknown })?.success === true;
  }

  #toError(answer: AnswerInfo): ApiError {
    const ok = answer.status >= 200 && answer.status < 300;
    const json = answer.json as { success?: unknown } | undefined;
    if (ok && json?.success !== false) {
      // A 2xx that is not a success answer: the service may well have generated the bill.
      return new ApiError({
        status: answer.status,
        message: `The service answered HTTP ${answer.status} with a body that is not a success answer; the e-way bill may have been generated`,
        body: this.#redact.value(answer.json ?? keptBody(answer.bodyText)),
        headers: Object.fromEntries([...answer.headers].map(([name, value]) => [name, this.#redact.text(value)])),
        request: answer.request,
        mayHaveSucceeded: true,
      });
    }
    return mapErrorAnswer({ ...answer, redact: this.#redact });
  }

  /** The retry loop's view of this client, made on the first send (ky is imported then; see {@link loadKy}). */
  async #sender(): Promise<Sender> {
    if (this.#senderMade) return this.#senderMade;
    const keyId = await rateLimitKeyId(this.#apiKey);
    const ky = await loadKy();
    this.#senderMade ??= {
      http: ky.create({ retry: 0, timeout: false, throwHttpErrors: false, headers: this.#headers }),
      fetch: this.#fetch,
      limiter: this.#limiter,
      keyId,
      hooks: this.#options.hooks,
      logger: this.#options.logger,
      retryPolicy: defaultRetryPolicy,
      scrub: this.#redact.text,
      isSuccess: ServiceClient.#isSuccess,
      toError: (answer) => this.#toError(answer),
    };
    return this.#senderMade;
  }

  /** Inspection output without the API key. */
  toJSON(): Record<string, unknown> {
    const { baseUrl, timeout, maxRetries } = this.#options;
    return { baseUrl, apiKey: '[redacted]', timeout, maxRetries };
  }
}

let kyLoading: Promise<typeof import('ky').default> | undefined;

/**
 * ky, imported on the first send rather than with the SDK: ky touches `Request` and `ReadableStream` when it loads,
 * which makes Node load its fetch implementation (undici), about half of ky's import cost. A process that imports the
 * SDK and never sends (a CLI's `--help`, a webhook receiver that imports the root, a test that only builds models)
 * does not pay it; the first request pays what any first `fetch` pays.
 */
function loadKy(): Promise<typeof import('ky').default> {
  kyLoading ??= import('ky').then((module) => module.default);
  return kyLoading;
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
function parseModel(model: unknown): ReturnType<typeof EwayBillModelSchema.safeParse> | ValidationError {
  try {
    return EwayBillModelSchema.safeParse(model, { reportInput: true });
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
