// The public types of createEwayBills (./batch.ts): its items, options, progress and results. Apart from it, so that
// the batch's parts (./batch-items.ts, ./batch-lanes.ts, ./batch-estimate.ts, ./batch-run.ts) can name them without
// importing the function that wires them.

import type { WarnSink } from '../internal/callback.js';
import type { EwayBillModel } from '../model/schemas.js';
import type { Priority } from '../throttle/priority-queue.js';
import type { EwayBillCreator, EwayBillOnceResult } from './once.js';

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
