import { mayHaveSucceeded } from '../errors/transport-errors.js';
import { ValidationError, validationIssue } from '../errors/validation-error.js';
import { abortError } from '../internal/abort.js';
import { callUserCallback, type WarnSink } from '../internal/callback.js';
import type { EwayBillModel } from '../model/schemas.js';
import { createEwayBillOnce, type EwayBillCreator, type EwayBillOnceResult } from './once.js';
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
  /** Where a failing `onProgress` or `onResult` is reported. @default console */
  logger?: WarnSink | undefined;
}

/** The clients of a batch: one client, or clients by name (company), which items pick with `client`. */
export type EwayBillBatchClients =
  | EwayBillCreator
  | Readonly<Record<string, EwayBillCreator>>
  | ReadonlyMap<string, EwayBillCreator>;

/** The service's limit: one call per second per key, the pace assumed before any is measured. */
const ASSUMED_PACE_MS = 1000;

interface Lane {
  readonly client: EwayBillCreator;
  readonly queue: number[];
  next: number;
  unsettled: number;
  settledAt: number[];
}

const isCreator = (value: unknown): value is EwayBillCreator =>
  typeof (value as Partial<EwayBillCreator> | null)?.createEwayBill === 'function';

function clientLookup(clients: EwayBillBatchClients): (name: string | undefined) => EwayBillCreator | string {
  if (isCreator(clients)) {
    return (name) => (name === undefined ? clients : `client is '${name}', but createEwayBills was given one client`);
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
  return (name) =>
    name === undefined
      ? `client is missing; with several clients each item names one of ${names}`
      : (byName.get(name) ?? `client '${name}' is not one of ${names}`);
}

function checkOptions(options: EwayBillBatchOptions): Required<Pick<EwayBillBatchOptions, 'concurrencyPerClient'>> {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('createEwayBills: options must be an object');
  checkRequestOptions({ signal: options.signal, timeout: options.timeout, maxRetries: options.maxRetries });
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
  return { concurrencyPerClient: concurrency };
}

/** A client whose uncertain failures look certain to `createEwayBillOnce`, so it never sends a second time. */
function noResend(client: EwayBillCreator): EwayBillCreator {
  return {
    createEwayBill: (docHashId, model, options) =>
      client.createEwayBill(docHashId, model, options).catch((error: unknown) => {
        throw mayHaveSucceeded(error) ? new NoResend(error) : error;
      }),
  };
}

/** Carries an uncertain error through `createEwayBillOnce` without a resend; unwrapped when the item settles. */
class NoResend {
  constructor(readonly error: unknown) {}
}

/** The estimate of {@link EwayBillBatchProgress.etaMs}: the slowest lane's unsettled items times its pace. */
function etaOf(lanes: Iterable<Lane>): number {
  let eta = 0;
  for (const lane of lanes) {
    const times = lane.settledAt;
    const first = times[0];
    const last = times.at(-1);
    const pace =
      times.length >= 2 && first !== undefined && last !== undefined
        ? (last - first) / (times.length - 1)
        : ASSUMED_PACE_MS;
    eta = Math.max(eta, lane.unsettled * pace);
  }
  return Math.round(eta);
}

/**
 * Creates the e-way bills of many documents in one call, over one client or several (one per company key).
 * Every item settles on its own: the promise resolves, in input order, with a result per item (a value or a typed
 * error); one failure never rejects the batch. Clients run in parallel, each at its key's rate limit; items of one
 * client go one at a time, so a huge batch holds no more than a few requests in flight.
 *
 * @throws {TypeError} before anything is sent, when `clients`, `items` or `options` are malformed (naming the item).
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
  const { concurrencyPerClient } = checkOptions(options);
  const lookup = clientLookup(clients);
  if (typeof (items as Partial<Iterable<unknown>> | null)?.[Symbol.iterator] !== 'function') {
    throw new TypeError('createEwayBills: items must be an array (or iterable) of { docHashId, model }');
  }
  const list = Array.from(items);
  const lanes = new Map<EwayBillCreator, Lane>();
  const laneOf: Lane[] = [];
  list.forEach((item, index) => {
    if (typeof item !== 'object' || item === null)
      throw new TypeError(`createEwayBills: items[${index}] is not an object`);
    if (typeof item.docHashId !== 'string') {
      throw new TypeError(`createEwayBills: items[${index}].docHashId must be a string; got ${typeof item.docHashId}`);
    }
    const client = lookup(item.client);
    if (typeof client === 'string') throw new TypeError(`createEwayBills: items[${index}].${client}`);
    let lane = lanes.get(client);
    if (!lane) {
      lane = { client, queue: [], next: 0, unsettled: 0, settledAt: [] };
      lanes.set(client, lane);
    }
    lane.unsettled += 1;
    laneOf[index] = lane;
  });

  const { signal, onProgress, onResult, timeout, maxRetries } = options;
  const sink = options.logger ?? console;
  const results: EwayBillBatchResult[] = new Array(list.length);
  const handedOver = new Set<number>();
  let done = 0;
  let failed = 0;
  const progress = () =>
    callUserCallback(
      'onProgress',
      onProgress,
      [{ done, total: list.length, failed, etaMs: etaOf(lanes.values()) }],
      sink,
    );

  function settle(index: number, outcome: { value: EwayBillOnceResult } | { error: unknown }): void {
    if (results[index] !== undefined) return;
    const item = list[index] as EwayBillBatchItem;
    const base = { docHashId: item.docHashId, client: item.client };
    let result: EwayBillBatchResult;
    if ('value' in outcome) {
      result = { status: 'fulfilled', ...base, value: outcome.value };
    } else {
      const thrown = outcome.error instanceof NoResend ? outcome.error.error : outcome.error;
      const error = thrown instanceof Error ? thrown : new Error(String(thrown), { cause: thrown });
      const isAbort = error.name === 'AbortError';
      const maybe = isAbort ? handedOver.has(index) : mayHaveSucceeded(error);
      result = { status: 'rejected', ...base, error, mayHaveSucceeded: maybe };
      failed += 1;
    }
    results[index] = result;
    done += 1;
    const lane = laneOf[index] as Lane;
    lane.unsettled -= 1;
    // The pace counts the items the client answered, not refusals or aborts.
    const answered = result.status === 'fulfilled' || result.error.name !== 'AbortError';
    if (handedOver.has(index) && answered) lane.settledAt.push(performance.now());
    callUserCallback('onResult', onResult, [result, index], sink);
    progress();
  }

  // A document listed twice for one client would be a second e-way bill: the repeat is refused, never sent.
  const seen = new Map<string, number>();
  list.forEach((item, index) => {
    const key = `${item.client ?? ''}\u0000${item.docHashId}`;
    const firstIndex = seen.get(key);
    if (firstIndex === undefined) {
      seen.set(key, index);
      (laneOf[index] as Lane).queue.push(index);
      return;
    }
    const issue = validationIssue(
      ['items', index, 'docHashId'],
      `repeats items[${firstIndex}] for the same client; it was not sent`,
    );
    settle(index, { error: new ValidationError('e-way bill batch', [issue]) });
  });

  const abortRest = () => {
    const error = abortError(signal as AbortSignal);
    for (let index = 0; index < list.length; index++) settle(index, { error });
  };
  progress();
  if (signal?.aborted) {
    abortRest();
    return results;
  }
  signal?.addEventListener('abort', abortRest, { once: true });
  const send = async (index: number): Promise<EwayBillOnceResult> => {
    const { docHashId, model, mayAlreadyExist } = list[index] as EwayBillBatchItem;
    const client = (laneOf[index] as Lane).client;
    const callOptions = { signal, timeout, maxRetries };
    if (options.recover !== false) {
      return createEwayBillOnce(client, docHashId, model, {
        ...callOptions,
        mayAlreadyExist: mayAlreadyExist === true,
      });
    }
    // Without recovery, a 604 of an item that may already exist still means it does: one request either way.
    return createEwayBillOnce(noResend(client), docHashId, model, {
      ...callOptions,
      mayAlreadyExist: mayAlreadyExist === true,
    });
  };
  const worker = async (lane: Lane): Promise<void> => {
    while (lane.next < lane.queue.length && !signal?.aborted) {
      const index = lane.queue[lane.next++] as number;
      handedOver.add(index);
      try {
        settle(index, { value: await send(index) });
      } catch (error) {
        settle(index, { error });
      }
    }
  };
  try {
    await Promise.all(
      [...lanes.values()].flatMap((lane) => Array.from({ length: concurrencyPerClient }, () => worker(lane))),
    );
  } finally {
    signal?.removeEventListener('abort', abortRest);
  }
  return results;
}
