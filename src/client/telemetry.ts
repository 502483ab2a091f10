// OpenTelemetry for the client's calls, as the application registered it (see ../internal/otel.ts). The send path calls
// `startCall`; with no tracer or meter provider registered it costs a property read and does nothing. The spans and
// instruments themselves (./telemetry-call.ts) are imported when a call first finds a provider registered: a bundler
// that splits code keeps them out of the client's first chunk, and an application without OpenTelemetry never loads them.

import { lazyPart } from '../internal/lazy.js';
import { otelRegistered } from '../internal/otel-registry.js';
import type { CallStart, CallTelemetry } from './telemetry-call.js';

export type { AttemptEnd, CallEnd, CallStart, CallTelemetry } from './telemetry-call.js';

/** The spans and instruments, imported on the first call that finds a provider registered. */
const calls = /* @__PURE__ */ lazyPart(() => import('./telemetry-call.js'));

/**
 * The telemetry of a call, or `undefined` at once when there is nothing to record to (no provider registered): the
 * budget's label is then not even computed, and the call takes no extra turn of the event loop. A part that cannot be
 * imported (a chunk a browser could not fetch) leaves the call without telemetry, never fails it.
 */
export function startCall(
  startOf: () => Omit<CallStart, 'budgetHash'>,
  budgetHash: () => Promise<string>,
): Promise<CallTelemetry | undefined> | undefined {
  if (!otelRegistered()) return undefined;
  // Read only when telemetry is on: a call without it builds nothing here (its URL stays unmade while it queues).
  const start = startOf();
  const loaded = calls.value;
  if (loaded) return budgetHash().then((hash) => loaded.beginCall({ ...start, budgetHash: hash }));
  const loading = calls.load().catch(() => undefined);
  return Promise.all([budgetHash(), loading]).then(([hash, part]) => part?.beginCall({ ...start, budgetHash: hash }));
}
