import { mayHaveSucceeded } from '../errors/transport-errors.js';
import { ValidationError, validationIssue } from '../errors/validation-error.js';
import { abortError } from '../internal/abort.js';
import { callUserCallback, type WarnSink } from '../internal/callback.js';
import type { EwayBillModel } from '../model/schemas.js';
import type { Priority } from '../throttle/priority-queue.js';
import { budgetsOf } from './budget.js';
import { createEwayBillOnce, type EwayBillCreator, type EwayBillOnceResult, NO_RESEND } from './once.js';
import { checkRequestOptions } from './options.js';

/** One document of a batch. */
export interface EwayBillBatchItem {
  /** The `hash_id` of the document. */
  readonly docHashId: string;
  /** The e-way bill's details. */
  readonly model: EwayBillModel;
  /** With several clients: the name of the client (company) that sends this item. Leave it out with one client. */
  readonly client?: string | undefined;
  /**
   * An earlier attempt (an earlier run) may have generated this bill: a 604 "already generated" is then success, as
   * with `createEwayBillOnce(..., { mayAlreadyExist: true })`.
   * @default false
   */
  readonly mayAlreadyExist?: boolean | undefined;
}

/** The settled result of one item, at the item's index in the input. */
export type EwayBillBatchResult =
  | {
      readonly status: 'fulfilled';
      readonly docHashId: string;
      readonly client: string | undefined;
      readonly value: EwayBillOnceResult;
    }
  | {
      readonly status: 'rejected';
      readonly docHashId: string;
      readonly client: string | undefined;
      /** A typed error of the SDK (`ValidationError`, `PortalError`, ...), or an `AbortError`. */
      readonly error: Error;
      /**
       * Whether the bill may exist despite the error: the error's `mayHaveSucceeded`, or, for an `AbortError`, whether
       * the item had been handed to its client (it may have been in flight). Send such an item again with
       * `createEwayBillOnce(..., { mayAlreadyExist: true })`.
       */
      readonly mayHaveSucceeded: boolean;
    };

/** What `onProgress` receives. */
export interface EwayBillBatchProgress {
  /** Items settled so far, fulfilled or rejected. */
  readonly done: number;
  readonly total: number;
  /** Items rejected so far. */
  readonly failed: number;
  /**
   * Estimated milliseconds left: the busiest client's unsettled items times its pace (1 s per call, the service's
   * limit per key, until two of its items have settled; then the pace measured). Clients run in parallel.
   */
  readonly etaMs: number;
}

/** Options of {@link createEwayBills}. */
export interface EwayBillBatchOptions {
  /** Stops the batch: nothing more is sent; every unsettled item settles at once with an `AbortError`. */
  signal?: AbortSignal | undefined;
  /** Called once before anything is sent, then after each item settles. May throw or reject: it is reported, not fatal. */
  onProgress?: ((progress: EwayBillBatchProgress) => unknown) | undefined;
  /** Called as each item settles (before `onProgress`), with its input index: write results as they come. */
  onResult?: ((result: EwayBillBatchResult, index: number) => unknown) | undefined;
  /**
   * Recover from lost answers as `createEwayBillOnce` does: after a failure that may have succeeded, send once more
   * and take a 604 "already generated" as success. `false` sends each item once and reports the error.
   * @default true
   */
  recover?: boolean | undefined;
  /** Items of one client in flight at once. More helps only with a `rateLimiter` that allows several per key. @default 1 */
  concurrencyPerClient?: number | undefined;
  /** Each attempt's timeout, as in `createEwayBill`. */
  timeout?: number | false | undefined;
  /** Automatic retries of each item, as in `createEwayBill`. */
  maxRetries?: number | undefined;
  /**
   * Each item's priority among the calls waiting for its key's rate limit, as in `createEwayBill`: a batch's items
   * give way to the interactive calls of the same key.
   * @default 'low'
   */
  priority?: Priority | undefined;
  /** Each item's `maxQueueWait`, as in `createEwayBill`: an item that cannot start in time settles with `QueueTimeoutError`. */
  maxQueueWait?: number | undefined;
  /** Where a failing `onProgress` or `onResult` is reported. @default console */
  logger?: WarnSink | undefined;
  /** The wait before `createEwayBillOnce`'s resend of an item whose first request may have been sent. @default 5000 */
  resendDelayMs?: number | undefined;
  /**
   * Items read ahead of those started. Items are read lazily, in order: with input sorted by key, keys beyond the
   * first `readAhead` items start as the earlier ones are sent.
   * @default 10000
   */
  readAhead?: number | undefined;
  /**
   * Keep each item's result for the returned array. `false` for endless or huge input: results reach `onResult` only,
   * no result is kept (each document id still is, per key, so a document listed twice is never sent twice), and the
   * promise resolves with an empty array.
   * @default true
   */
  keepResults?: boolean | undefined;
}

/** The clients of a batch: one client, or clients by name (company), which items pick with `client`. */
export type EwayBillBatchClients =
  | EwayBillCreator
  | Readonly<Record<string, EwayBillCreator>>
  | ReadonlyMap<string, EwayBillCreator>;

/** The service's limit: one call per second per key, the pace assumed before any is measured. */
const ASSUMED_PACE_MS = 1000;

/** The items of the clients that share a rate-limit budget (one API key, or one `rateLimitKey`), whichever client names them. */
interface Lane {
  readonly queue: number[];
  unsettled: number;
  /** The items of an array input that are this lane's and not read yet (counted up front, for the estimate). */
  unread: number;
  /** When the first and the last of the items the key answered settled, and how many it answered: its pace. */
  firstAt: number;
  lastAt: number;
  answered: number;
  /** Workers sending this lane's items now. */
  running: number;
  /** The key's refusal (`UNAUTHORIZED`, `FORBIDDEN`): the lane's other items settle with it, unsent. */
  refused: Error | undefined;
}

const isCreator = (value: unknown): value is EwayBillCreator =>
  typeof (value as Partial<EwayBillCreator> | null)?.createEwayBill === 'function';

/** A client by the name an item gives (or what is wrong with the name). */
type ClientLookup = (name: string | undefined) => EwayBillCreator | string;

/** The clients of a batch, checked: how items find theirs, and all of them (for the lanes). */
function clientLookup(clients: EwayBillBatchClients): { lookup: ClientLookup; all: readonly EwayBillCreator[] } {
  if (isCreator(clients)) {
    const lookup: ClientLookup = (name) =>
      name === undefined ? clients : `client is '${name}', but createEwayBills was given one client`;
    return { lookup, all: [clients] };
  }
  const entries =
    clients instanceof Map
      ? [...clients]
      : typeof clients === 'object' && clients !== null
        ? Object.entries(clients)
        : [];
  if (entries.length === 0) {
    throw new TypeError(
      'createEwayBills: clients must be a ServiceClient, or a non-empty record or Map of them by name',
    );
  }
  const byName = new Map<string, EwayBillCreator>();
  for (const [name, client] of entries) {
    if (!isCreator(client)) throw new TypeError(`createEwayBills: clients['${name}'] is not a ServiceClient`);
    byName.set(String(name), client);
  }
  const names = [...byName.keys()].map((n) => `'${n}'`).join(', ');
  const lookup: ClientLookup = (name) =>
    name === undefined
      ? `client is missing; with several clients each item names one of ${names}`
      : (byName.get(name) ?? `client '${name}' is not one of ${names}`);
  return { lookup, all: [...byName.values()] };
}

function checkOptions(
  options: EwayBillBatchOptions,
): Required<Pick<EwayBillBatchOptions, 'concurrencyPerClient' | 'readAhead' | 'keepResults'>> {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('createEwayBills: options must be an object');
  const { signal, timeout, maxRetries, priority, maxQueueWait } = options;
  checkRequestOptions({ signal, timeout, maxRetries, priority, maxQueueWait });
  for (const name of ['onProgress', 'onResult'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') {
      throw new TypeError(`createEwayBills: options.${name} must be a function`);
    }
  }
  const concurrency = options.concurrencyPerClient ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 100) {
    throw new TypeError(
      `createEwayBills: options.concurrencyPerClient must be an integer from 1 to 100; got ${String(concurrency)}`,
    );
  }
  const readAhead = options.readAhead ?? DEFAULT_READ_AHEAD;
  if (!Number.isInteger(readAhead) || readAhead < 1 || readAhead > 10_000_000) {
    throw new TypeError(
      `createEwayBills: options.readAhead must be an integer from 1 to 10000000; got ${String(readAhead)}`,
    );
  }
  if (options.keepResults !== undefined && typeof options.keepResults !== 'boolean') {
    throw new TypeError('createEwayBills: options.keepResults must be a boolean');
  }
  return { concurrencyPerClient: concurrency, readAhead, keepResults: options.keepResults !== false };
}

/**
 * The estimate of {@link EwayBillBatchProgress.etaMs}: the slowest lane's unsettled items times its pace. It scans
 * every lane after each settle with a few keys, at most every ETA_RESCAN_MS with many (a scan per settle over 50,000
 * keys made a batch quadratic); in between, the last scan's estimate less the time since.
 */
class BatchEstimate {
  #etaMs = 0;
  #etaAt = Number.NEGATIVE_INFINITY;

  constructor(readonly lanes: BatchLanes) {}

  /** Milliseconds left; 0 once nothing is left to send. */
  now(nothingLeft: boolean): number {
    if (nothingLeft) return 0;
    const now = performance.now();
    if (this.lanes.size <= ETA_SCAN_LANES || now - this.#etaAt >= ETA_RESCAN_MS) {
      this.#etaMs = BatchEstimate.scan(this.lanes.all());
      this.#etaAt = now;
      return this.#etaMs;
    }
    return Math.max(0, Math.round(this.#etaMs - (now - this.#etaAt)));
  }

  static scan(lanes: Iterable<Lane>): number {
    let eta = 0;
    for (const lane of lanes) {
      const left = lane.unsettled + lane.unread;
      if (left === 0) continue;
      const pace = lane.answered >= 2 ? (lane.lastAt - lane.firstAt) / (lane.answered - 1) : ASSUMED_PACE_MS;
      eta = Math.max(eta, left * pace);
    }
    return Math.round(eta);
  }
}

/**
 * The lanes per key: the clients whose budgets (their key, their rateLimitKey) connect, directly or through other
 * clients, share one lane, where their items wait and go one (or `concurrencyPerClient`) at a time; and per lane, the
 * documents seen, so a document listed twice for one key is refused. The groups are found before anything is read,
 * over every client of the batch (union-find), so they never depend on the order of the items: clients A (key K1,
 * rateLimitKey R), B (K2), C (K2, R) and D (K1) are one lane.
 */
class BatchLanes {
  /** Each budget's group: one budget that stands for the connected group it is in. */
  readonly #groupOf = new Map<unknown, unknown>();
  readonly #byGroup = new Map<unknown, Lane>();
  readonly #seen = new Map<Lane, Map<string, number>>();

  constructor(clients: Iterable<object>) {
    const parent = new Map<unknown, unknown>();
    const find = (budget: unknown): unknown => {
      let root = budget;
      while (parent.get(root) !== root) root = parent.get(root);
      for (let at = budget; at !== root; ) {
        const up = parent.get(at);
        parent.set(at, root);
        at = up;
      }
      return root;
    };
    for (const client of clients) {
      const budgets = budgetsOf(client);
      for (const budget of budgets) if (!parent.has(budget)) parent.set(budget, budget);
      for (const budget of budgets.slice(1)) parent.set(find(budget), find(budgets[0]));
    }
    for (const budget of parent.keys()) this.#groupOf.set(budget, find(budget));
  }

  get size(): number {
    return this.#byGroup.size;
  }

  all(): Iterable<Lane> {
    return this.#byGroup.values();
  }

  /** The lane of a client's group, made on first use; `undefined` is the lane of malformed items. */
  of(client: object | undefined): Lane {
    const budget = client === undefined ? undefined : budgetsOf(client)[0];
    const group = this.#groupOf.get(budget) ?? budget;
    let lane = this.#byGroup.get(group);
    if (!lane) {
      lane = { queue: [], unsettled: 0, unread: 0, firstAt: 0, lastAt: 0, answered: 0, running: 0, refused: undefined };
      this.#byGroup.set(group, lane);
    }
    return lane;
  }

  /** The index of the item that listed `docHashId` for this lane's key before, or `undefined` (and it is noted). */
  repeated(lane: Lane, docHashId: string, index: number): number | undefined {
    let seen = this.#seen.get(lane);
    if (!seen) {
      seen = new Map();
      this.#seen.set(lane, seen);
    }
    const first = seen.get(docHashId);
    if (first === undefined) seen.set(docHashId, index);
    return first;
  }

  /** Empties every lane's queue (an abort). */
  clear(): void {
    for (const lane of this.#byGroup.values()) lane.queue.length = 0;
  }
}

/**
 * Reading the items: an array is checked whole before anything is sent; another iterable is read as it goes, at most
 * `readAhead` ahead of what started. Each item read is handed over checked (`problem`) with its index; a failure of
 * the iterable itself ends the reading and is kept (`error`).
 */
class BatchItems {
  readonly array: readonly EwayBillBatchItem[] | undefined;
  read = 0;
  exhausted = false;
  error: unknown;
  readonly #iterator: Iterator<EwayBillBatchItem>;

  constructor(
    items: Iterable<EwayBillBatchItem>,
    readonly lookup: ClientLookup,
  ) {
    if (typeof (items as Partial<Iterable<unknown>> | null)?.[Symbol.iterator] !== 'function') {
      throw new TypeError('createEwayBills: items must be an array (or iterable) of { docHashId, model }');
    }
    this.array = Array.isArray(items) ? (items as readonly EwayBillBatchItem[]) : undefined;
    this.array?.forEach((item, index) => {
      const problem = itemProblem(item, lookup);
      if (problem) throw new TypeError(`createEwayBills: items[${index}]${problem}`);
    });
    this.#iterator = items[Symbol.iterator]();
  }

  /** How many items there are: an array's length, or those read so far. */
  get total(): number {
    return this.array ? this.array.length : this.read;
  }

  /** The next item, checked, or `undefined` at the end (or when the iterable failed, kept in `error`). */
  next(): { index: number; item: EwayBillBatchItem; problem: string | undefined } | undefined {
    let next: IteratorResult<EwayBillBatchItem>;
    try {
      next = this.#iterator.next();
    } catch (error) {
      this.error = error;
      this.exhausted = true;
      return undefined;
    }
    if (next.done) {
      this.exhausted = true;
      return undefined;
    }
    return { index: this.read++, item: next.value, problem: itemProblem(next.value, this.lookup) };
  }
}

/** The error codes that refuse the key itself: every other item of that key would be refused the same way. */
const KEY_REFUSED = new Set(['UNAUTHORIZED', 'FORBIDDEN']);

/** Items read ahead of those started, by default: enough to keep thousands of keys busy, bounded for endless input. */
const DEFAULT_READ_AHEAD = 10_000;

/** Up to this many lanes (keys), the estimate is computed anew after each settle. */
const ETA_SCAN_LANES = 64;

/** With more lanes, the estimate is computed anew at most this often (milliseconds). */
const ETA_RESCAN_MS = 250;

/** Lanes started per turn of the event loop: starting 10,000 keys at once must not block it. */
const STARTS_PER_TURN = 50;

/**
 * Items settled between two turns of the event loop. A fetch that answers within the same turn (a mock, a cache)
 * would otherwise run a whole batch as one chain of microtasks: timers and I/O starve, and what Node frees only
 * between turns (the `WeakRef`s of each request's signal) piles up.
 */
const SETTLES_PER_TURN = 32;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Creates the e-way bills of many documents in one call, over one client or several (one per company key).
 * Every item settles on its own: the promise resolves, in input order, with a result per item (a value or a typed
 * error); one failure never rejects the batch. Keys run in parallel, each at its rate limit; items of one key go one at
 * a time, so a huge batch holds no more than a few requests in flight.
 *
 * Items are read lazily, at most `readAhead` ahead of those started, so a generator of a million lines starts sending
 * at once and its items are not all held; with `keepResults: false` no result is kept after `onResult` (only each
 * document id, per key, for the duplicate check), and the promise resolves with an empty array (for endless input,
 * use `onResult`). After `UNAUTHORIZED` or `FORBIDDEN` on a
 * key, its remaining items settle at once with that error, unsent; other keys go on. A document listed twice for one
 * key (under any client name, by two clients of the key, or by clients joined through a shared `rateLimitKey`) is
 * refused, never sent twice.
 *
 * @throws {TypeError} before anything is sent, when `clients` or `options` are malformed, or an array's item is
 *   (naming the item); an item of another iterable that is malformed settles as a `ValidationError`, unsent.
 * @example
 * const results = await createEwayBills({ acme: acmeClient, globex: globexClient }, [
 *   { client: 'acme', docHashId: 'doc_1', model },
 *   { client: 'globex', docHashId: 'doc_2', model },
 * ], { onProgress: ({ done, total, etaMs }) => console.log(`${done}/${total}, ${Math.ceil(etaMs / 1000)} s left`) });
 * for (const r of results) if (r.status === 'rejected') console.error(r.docHashId, r.error.message);
 */
export async function createEwayBills(
  clients: EwayBillBatchClients,
  items: Iterable<EwayBillBatchItem>,
  options: EwayBillBatchOptions = {},
): Promise<EwayBillBatchResult[]> {
  const { concurrencyPerClient, readAhead, keepResults } = checkOptions(options);
  const known = clientLookup(clients);
  const input = new BatchItems(items, known.lookup);
  const { array, lookup } = input;
  const { signal, onProgress, onResult } = options;
  const sink = options.logger ?? console;
  const results: EwayBillBatchResult[] = [];
  const lanes = new BatchLanes(known.all);
  // An array's items are all known: the estimate counts those beyond `readAhead` too, per key.
  if (array) for (const item of array) lanes.of(lookup(item.client) as EwayBillCreator).unread += 1;
  const estimate = new BatchEstimate(lanes);
  /** The items read and not yet settled, by index: each is dropped when it settles. */
  const pending = new Map<number, { readonly item: EwayBillBatchItem; readonly lane: Lane; started: boolean }>();
  let done = 0;
  let failed = 0;
  let queued = 0;
  const progress = () => {
    if (onProgress === undefined) return;
    const etaMs = estimate.now(pending.size === 0 && (!array || input.read === array.length));
    callUserCallback('onProgress', onProgress, [{ done, total: input.total, failed, etaMs }], sink);
  };

  function settle(index: number, outcome: { value: EwayBillOnceResult } | { error: unknown }): void {
    const entry = pending.get(index);
    if (!entry) return;
    pending.delete(index);
    const { item, lane, started } = entry;
    const base = { docHashId: item.docHashId, client: item.client };
    let result: EwayBillBatchResult;
    if ('value' in outcome) {
      result = { status: 'fulfilled', ...base, value: outcome.value };
    } else {
      const thrown = outcome.error;
      const error = thrown instanceof Error ? thrown : new Error(String(thrown), { cause: thrown });
      result = { status: 'rejected', ...base, error, mayHaveSucceeded: mayHaveSucceeded(error) };
      failed += 1;
    }
    if (keepResults) results[index] = result;
    done += 1;
    lane.unsettled -= 1;
    if (!started) queued -= 1;
    // The pace counts the items the key answered, not refusals or aborts.
    const answered = result.status === 'fulfilled' || !/^Abort/.test(result.error.name);
    if (started && answered) {
      const now = performance.now();
      if (lane.answered === 0) lane.firstAt = now;
      lane.lastAt = now;
      lane.answered += 1;
    }
    callUserCallback('onResult', onResult, [result, index], sink);
    progress();
  }

  /** Reads items until `readAhead` wait unstarted or the input ends; yields the lanes that got work. */
  function readMore(): Set<Lane> {
    const fed = new Set<Lane>();
    while (!input.exhausted && queued < readAhead) {
      // After an abort, an array's every index still gets its result; another iterable is not read further.
      if (signal?.aborted && !array) {
        input.exhausted = true;
        break;
      }
      const next = input.next();
      if (!next) break;
      const { index, item, problem } = next;
      const client = problem ? undefined : (lookup(item.client) as EwayBillCreator);
      const lane = lanes.of(client);
      if (array) lane.unread -= 1;
      lane.unsettled += 1;
      queued += 1;
      pending.set(index, {
        item: problem ? { docHashId: String(item?.docHashId), model: undefined as never } : item,
        lane,
        started: false,
      });
      if (problem) {
        settle(index, {
          error: new ValidationError('e-way bill batch', [
            validationIssue(['items', index], `items[${index}]${problem}`),
          ]),
        });
        continue;
      }
      if (signal?.aborted) {
        settle(index, { error: abortError(signal) });
        continue;
      }
      if (lane.refused) {
        settle(index, { error: lane.refused });
        continue;
      }
      // A document listed twice for one key would be a second e-way bill: the repeat is refused, never sent.
      const firstIndex = lanes.repeated(lane, item.docHashId, index);
      if (firstIndex !== undefined) {
        const issue = validationIssue(
          ['items', index, 'docHashId'],
          `repeats items[${firstIndex}] for the same API key; it was not sent`,
        );
        settle(index, { error: new ValidationError('e-way bill batch', [issue]) });
        continue;
      }
      lane.queue.push(index);
      fed.add(lane);
    }
    return fed;
  }

  const send = (item: EwayBillBatchItem): Promise<EwayBillOnceResult> => {
    const client = lookup(item.client) as EwayBillCreator;
    const onceOptions = {
      signal,
      timeout: options.timeout,
      maxRetries: options.maxRetries,
      priority: options.priority ?? 'low',
      maxQueueWait: options.maxQueueWait,
      resendDelayMs: options.resendDelayMs,
      mayAlreadyExist: item.mayAlreadyExist === true,
      // Without recovery, one request: an uncertain failure is the item's error (an internal option of
      // createEwayBillOnce); a 604 of an item that may already exist still means it does.
      [NO_RESEND]: options.recover === false,
    };
    return createEwayBillOnce(client, item.docHashId, item.model, onceOptions);
  };

  /** Settles the unstarted items of a lane whose key was refused, at once, with the refusal. */
  function refuseLane(lane: Lane, error: Error): void {
    lane.refused = error;
    for (const index of lane.queue.splice(0)) settle(index, { error });
  }

  let wake: (() => void) | undefined;
  /** Workers running, across lanes: the batch ends when the input is read and none runs. */
  let active = 0;
  let settledThisTurn = 0;
  async function worker(lane: Lane): Promise<void> {
    lane.running += 1;
    active += 1;
    try {
      for (;;) {
        const index = lane.queue.shift();
        if (index === undefined || signal?.aborted) break;
        const entry = pending.get(index);
        if (!entry) continue;
        entry.started = true;
        queued -= 1;
        wake?.();
        try {
          settle(index, { value: await send(entry.item) });
        } catch (error) {
          settle(index, { error });
          const code = (error as { code?: unknown } | null)?.code;
          if (typeof code === 'string' && KEY_REFUSED.has(code)) refuseLane(lane, error as Error);
        }
        if (++settledThisTurn >= SETTLES_PER_TURN) {
          settledThisTurn = 0;
          await nextTurn();
        }
      }
    } finally {
      lane.running -= 1;
      active -= 1;
      wake?.();
    }
  }
  const startWorkers = (lane: Lane) => {
    // A worker takes its first item before its first await, so each start empties the queue by one.
    while (lane.running < concurrencyPerClient && lane.queue.length > 0) void worker(lane);
  };

  const abortRest = () => {
    const error = abortError(signal as AbortSignal);
    for (const [index, entry] of pending) if (!entry.started) settle(index, { error });
    lanes.clear();
    wake?.();
  };
  signal?.addEventListener('abort', abortRest, { once: true });
  let first = true;
  try {
    for (;;) {
      const fed = readMore();
      if (first) {
        // Once before anything is sent, with the first items' estimate.
        first = false;
        progress();
      }
      let started = 0;
      for (const lane of fed) {
        if (lane.running < concurrencyPerClient) startWorkers(lane);
        if (++started % STARTS_PER_TURN === 0) await nextTurn();
      }
      if (input.exhausted && active === 0) break;
      if (input.exhausted || queued >= readAhead || fed.size === 0) {
        // Wait for a start (room to read) or a worker's end.
        await new Promise<void>((resolve) => {
          wake = resolve;
          if (active === 0) resolve();
        });
        wake = undefined;
      }
    }
  } finally {
    signal?.removeEventListener('abort', abortRest);
  }
  if (input.error !== undefined) {
    throw new TypeError(
      `createEwayBills: reading items failed after ${input.read} item(s); those were sent and reported`,
      { cause: input.error },
    );
  }
  return results;
}

/** What is wrong with a batch item (as a suffix of `items[i]`), or `undefined`. */
function itemProblem(item: unknown, lookup: ClientLookup): string | undefined {
  if (typeof item !== 'object' || item === null) return ' is not an object';
  const { docHashId, client } = item as Partial<EwayBillBatchItem>;
  if (typeof docHashId !== 'string') return `.docHashId must be a string; got ${typeof docHashId}`;
  const found = lookup(client);
  return typeof found === 'string' ? `.${found}` : undefined;
}
