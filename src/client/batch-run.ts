// One run of createEwayBills (./batch.ts): its steps, named. Read items into their lanes (`#read`), start a lane's
// workers (`#start`), send an item (`#work`, `#send`), settle it (`#settle`: its result, `onResult`, `onProgress`),
// stop a refused key's lane (`#refuseLane`) or the whole batch on abort (`#abortRest`).
import { mayHaveSucceeded } from '../errors/transport-errors.js';
import { ValidationError, validationIssue } from '../errors/validation-error.js';
import { abortError } from '../internal/abort.js';
import { callUserCallback, type WarnSink } from '../internal/callback.js';
import { BatchEstimate } from './batch-estimate.js';
import { BatchItems, clientLookup, type ReadItem } from './batch-items.js';
import { BatchLanes, type Lane } from './batch-lanes.js';
import type {
  EwayBillBatchClients,
  EwayBillBatchItem,
  EwayBillBatchOptions,
  EwayBillBatchResult,
} from './batch-types.js';
import { createEwayBillOnce, type EwayBillCreator, type EwayBillOnceResult, NO_RESEND } from './once.js';
import { checkRequestOptions } from './options.js';

/**
 * Runs a batch (`createEwayBills`, ./batch.ts): the options and clients checked, the items read (`BatchItems`) into
 * the lanes per key (`BatchLanes`), sent and settled by one run (`BatchRun`).
 * @throws {TypeError} before anything is sent, when `clients` or `options` are malformed, or an array's item is.
 */
export function runBatch(
  clients: EwayBillBatchClients,
  items: Iterable<EwayBillBatchItem>,
  options: EwayBillBatchOptions,
): Promise<EwayBillBatchResult[]> {
  const limits = checkOptions(options);
  const { lookup, all } = clientLookup(clients);
  return new BatchRun(new BatchItems(items, lookup), new BatchLanes(all), options, limits).run();
}

/** Items read ahead of those started, by default: enough to keep thousands of keys busy, bounded for endless input. */
const DEFAULT_READ_AHEAD = 10_000;

/** The batch's options, checked before anything is sent; its limits, resolved. */
function checkOptions(options: EwayBillBatchOptions): BatchLimits {
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

/** The limits of a run, checked by `checkOptions`. */
export interface BatchLimits {
  readonly concurrencyPerClient: number;
  readonly readAhead: number;
  readonly keepResults: boolean;
}

/** An item read and not settled yet. */
interface PendingItem {
  readonly item: EwayBillBatchItem;
  readonly lane: Lane;
  started: boolean;
}

type Outcome = { value: EwayBillOnceResult } | { error: unknown };

/** The error codes that refuse the key itself: every other item of that key would be refused the same way. */
const KEY_REFUSED = new Set(['UNAUTHORIZED', 'FORBIDDEN']);

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
 * One run of a batch: the items read and not settled, the counts `onProgress` reports, and the workers of each lane.
 * Each item is read into its lane, waits there, is sent by one of the lane's workers, and settles once.
 */
export class BatchRun {
  readonly #items: BatchItems;
  readonly #lanes: BatchLanes;
  readonly #estimate: BatchEstimate;
  readonly #options: EwayBillBatchOptions;
  readonly #limits: BatchLimits;
  readonly #sink: WarnSink;
  readonly #results: EwayBillBatchResult[] = [];
  /** The items read and not yet settled, by index: each is dropped when it settles. */
  readonly #pending = new Map<number, PendingItem>();
  #done = 0;
  #failed = 0;
  /** Items read and not started: reading stops at `readAhead` of them. */
  #queued = 0;
  /** Workers running, across lanes: the batch ends when the input is read and none runs. */
  #active = 0;
  #settledThisTurn = 0;
  /** Resolves the run's wait for room to read or a worker's end. */
  #wake: (() => void) | undefined;

  constructor(items: BatchItems, lanes: BatchLanes, options: EwayBillBatchOptions, limits: BatchLimits) {
    this.#items = items;
    this.#lanes = lanes;
    this.#options = options;
    this.#limits = limits;
    this.#sink = options.logger ?? console;
    this.#estimate = new BatchEstimate(lanes);
    // An array's items are all known: the estimate counts those beyond `readAhead` too, per key.
    for (const item of items.array ?? []) lanes.of(items.lookup(item.client) as EwayBillCreator).unread += 1;
  }

  /**
   * Runs the batch to its end: reads, starts the lanes that got work, and waits for room to read or a worker's end.
   * @throws {TypeError} when the iterable of items failed (after the items read before were sent and reported).
   */
  async run(): Promise<EwayBillBatchResult[]> {
    const { signal } = this.#options;
    signal?.addEventListener('abort', this.#abortRest, { once: true });
    try {
      let fed = this.#read();
      // Once before anything is sent, with the first items' estimate.
      this.#progress();
      for (;;) {
        await this.#start(fed);
        if (this.#items.exhausted && this.#active === 0) break;
        if (this.#items.exhausted || this.#queued >= this.#limits.readAhead || fed.size === 0) {
          await this.#roomOrEnd();
        }
        fed = this.#read();
      }
    } finally {
      signal?.removeEventListener('abort', this.#abortRest);
    }
    const input = this.#items;
    if (input.error !== undefined) {
      throw new TypeError(
        `createEwayBills: reading items failed after ${input.read} item(s); those were sent and reported`,
        { cause: input.error },
      );
    }
    return this.#results;
  }

  /** Reads items until `readAhead` wait unstarted or the input ends; returns the lanes that got work. */
  #read(): Set<Lane> {
    const fed = new Set<Lane>();
    const input = this.#items;
    const { signal } = this.#options;
    while (!input.exhausted && this.#queued < this.#limits.readAhead) {
      // After an abort, an array's every index still gets its result; another iterable is not read further.
      if (signal?.aborted && !input.array) {
        input.exhausted = true;
        break;
      }
      const next = input.next();
      if (!next) break;
      const lane = this.#admit(next);
      const refusal = this.#refusal(next, lane);
      if (refusal) {
        this.#settle(next.index, { error: refusal });
        continue;
      }
      lane.queue.push(next.index);
      fed.add(lane);
    }
    return fed;
  }

  /** Counts an item read as pending in its lane (a malformed one in the lane of malformed items, by its id alone). */
  #admit({ index, item, problem }: ReadItem): Lane {
    const client = problem ? undefined : (this.#items.lookup(item.client) as EwayBillCreator);
    const lane = this.#lanes.of(client);
    if (this.#items.array) lane.unread -= 1;
    lane.unsettled += 1;
    this.#queued += 1;
    this.#pending.set(index, {
      item: problem ? { docHashId: String(item?.docHashId), model: undefined as never } : item,
      lane,
      started: false,
    });
    return lane;
  }

  /** Why an item read is not sent (malformed, aborted, its key refused, a repeat for its key), or `undefined`. */
  #refusal({ index, item, problem }: ReadItem, lane: Lane): Error | undefined {
    if (problem) {
      return new ValidationError('e-way bill batch', [validationIssue(['items', index], `items[${index}]${problem}`)]);
    }
    const { signal } = this.#options;
    if (signal?.aborted) return abortError(signal);
    if (lane.refused) return lane.refused;
    // A document listed twice for one key would be a second e-way bill: the repeat is refused, never sent.
    const firstIndex = this.#lanes.repeated(lane, item.docHashId, index);
    if (firstIndex === undefined) return undefined;
    const issue = validationIssue(
      ['items', index, 'docHashId'],
      `repeats items[${firstIndex}] for the same API key; it was not sent`,
    );
    return new ValidationError('e-way bill batch', [issue]);
  }

  /** Starts the workers of the lanes that got work, `STARTS_PER_TURN` lanes per turn of the event loop. */
  async #start(fed: Set<Lane>): Promise<void> {
    let started = 0;
    for (const lane of fed) {
      // A worker takes its first item before its first await, so each start empties the queue by one.
      while (lane.running < this.#limits.concurrencyPerClient && lane.queue.length > 0) void this.#work(lane);
      if (++started % STARTS_PER_TURN === 0) await nextTurn();
    }
  }

  /** Waits for a start (room to read) or a worker's end. */
  async #roomOrEnd(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#wake = resolve;
      if (this.#active === 0) resolve();
    });
    this.#wake = undefined;
  }

  /** One worker of a lane: sends its items one at a time until the lane's queue is empty or the batch is aborted. */
  async #work(lane: Lane): Promise<void> {
    lane.running += 1;
    this.#active += 1;
    try {
      for (;;) {
        const index = lane.queue.shift();
        if (index === undefined || this.#options.signal?.aborted) break;
        const entry = this.#pending.get(index);
        if (!entry) continue;
        entry.started = true;
        this.#queued -= 1;
        this.#wake?.();
        try {
          this.#settle(index, { value: await this.#send(entry.item) });
        } catch (error) {
          this.#settle(index, { error });
          const code = (error as { code?: unknown } | null)?.code;
          if (typeof code === 'string' && KEY_REFUSED.has(code)) this.#refuseLane(lane, error as Error);
        }
        if (++this.#settledThisTurn >= SETTLES_PER_TURN) {
          this.#settledThisTurn = 0;
          await nextTurn();
        }
      }
    } finally {
      lane.running -= 1;
      this.#active -= 1;
      this.#wake?.();
    }
  }

  /** Sends one item through `createEwayBillOnce`, with the batch's options. */
  #send(item: EwayBillBatchItem): Promise<EwayBillOnceResult> {
    const options = this.#options;
    const client = this.#items.lookup(item.client) as EwayBillCreator;
    const onceOptions = {
      signal: options.signal,
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
  }

  /** Settles an item once: its result is kept (with `keepResults`), counted, and reported to `onResult` and `onProgress`. */
  #settle(index: number, outcome: Outcome): void {
    const entry = this.#pending.get(index);
    if (!entry) return;
    this.#pending.delete(index);
    const { item, lane, started } = entry;
    const result = resultOf(item, outcome);
    if (result.status === 'rejected') this.#failed += 1;
    if (this.#limits.keepResults) this.#results[index] = result;
    this.#done += 1;
    lane.unsettled -= 1;
    if (!started) this.#queued -= 1;
    // The pace counts the items the key answered, not refusals or aborts.
    if (started && (result.status === 'fulfilled' || !/^Abort/.test(result.error.name))) this.#estimate.answered(lane);
    callUserCallback('onResult', this.#options.onResult, [result, index], this.#sink);
    this.#progress();
  }

  /** Reports progress to `onProgress`, with the estimate. */
  #progress(): void {
    const { onProgress } = this.#options;
    if (onProgress === undefined) return;
    const etaMs = this.#estimate.now(this.#pending.size === 0 && this.#items.unread === 0);
    const progress = { done: this.#done, total: this.#items.total, failed: this.#failed, etaMs };
    callUserCallback('onProgress', onProgress, [progress], this.#sink);
  }

  /** Settles the unstarted items of a lane whose key was refused, at once, with the refusal. */
  #refuseLane(lane: Lane, error: Error): void {
    lane.refused = error;
    for (const index of lane.queue.splice(0)) this.#settle(index, { error });
  }

  /** On the signal's abort: every unstarted item settles at once with an `AbortError`, and nothing more is sent. */
  readonly #abortRest = (): void => {
    const error = abortError(this.#options.signal as AbortSignal);
    for (const [index, entry] of this.#pending) if (!entry.started) this.#settle(index, { error });
    this.#lanes.clear();
    this.#wake?.();
  };
}

/** The result of an item's outcome: a thrown value that is not an `Error` is wrapped in one, as its `cause`. */
function resultOf(item: EwayBillBatchItem, outcome: Outcome): EwayBillBatchResult {
  const base = { docHashId: item.docHashId, client: item.client };
  if ('value' in outcome) return { status: 'fulfilled', ...base, value: outcome.value };
  const thrown = outcome.error;
  const error = thrown instanceof Error ? thrown : new Error(String(thrown), { cause: thrown });
  return { status: 'rejected', ...base, error, mayHaveSucceeded: mayHaveSucceeded(error) };
}
