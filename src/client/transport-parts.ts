// The transport's parts (./transport.ts `startTransport`), in one module imported on a process's first call: one
// dynamic import, not one per part. A bundler that splits code puts each module that the client's first load shares
// with a lazily loaded module into a chunk per set of such modules, fetched before the client runs: one lazily
// loaded module for the parts keeps those chunks few (issue 29's first load, docs/benchmarks.md).
import ky from 'ky';
import { answerError } from '../errors/map-answer.js';
import { preflightError, preflightEwayBill } from '../gst/preflight.js';
import { exchange } from './exchange.js';
import {
  acquireOptionsOf,
  endedBeforeSend,
  grantedTooLate,
  notGranted,
  retryTooLate,
  SlotWait,
  timedOutAfterSend,
} from './queue-call.js';
import { answerChecker, checkCall, resolvePath } from './request-rules.js';

/**
 * What the transport imports on its first call rather than with the SDK, so that a bundler that splits code keeps
 * them out of the client's first chunk, and a process that imports the SDK and never sends does not load them: ky
 * (which makes Node load undici), the mapping of error answers (with `PortalError` and the portal's descriptions),
 * the preflight's rules (with the PIN code and state tables), the rules of `request` (its path and body), the HTTP
 * exchange itself, and what a call tells the limiter about its wait (with its `QueueTimeoutError`s).
 */
export const transportParts = {
  /** One ky instance for every client: a client's headers go with each attempt, the fetch and signal with each request. */
  ky: ky.create({ retry: 0, timeout: false, throwHttpErrors: false }),
  mapping: { answerError },
  preflight: { preflightEwayBill, preflightError },
  rules: { checkCall, resolvePath, answerChecker },
  /** One HTTP exchange (with the write tracker and the reading of transport failures). */
  exchange,
  queue: { acquireOptionsOf, retryTooLate, timedOutAfterSend, notGranted, endedBeforeSend, grantedTooLate, SlotWait },
} as const;

export type TransportParts = typeof transportParts;
