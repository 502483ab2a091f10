// The OpenTelemetry gauge of the rate-limit queues (issue 30): `invoicing_service.rate_limit.queue_depth`, the calls
// waiting per budget (its short hash, never the key) and priority, read from the limiters when the metrics are
// collected. Part of the telemetry chunk, loaded only when OpenTelemetry is registered.
import type { Attributes, Meter } from '../internal/otel.js';
import { PRIORITIES } from '../throttle/priority-queue.js';
import { QUEUE_STATUS, type QueueStatusLimiter } from '../throttle/queue-options.js';
import type { RateLimiter } from '../throttle/rate-limiter.js';

/** The budgets whose queues the gauge reports: each forgotten once its queue is empty, and never more than this many. */
const MAX_WATCHED = 1000;

const watched = new Map<string, { readonly limiter: RateLimiter; readonly budgets: readonly string[] }>();

/** Reports the queues of `budgets` at `limiter` from now on (a limiter that does not tell its queue is skipped). */
export function watchQueue(limiter: RateLimiter, budgets: readonly string[]): void {
  if (!(QUEUE_STATUS in limiter)) return;
  const id = budgets.join(',');
  watched.delete(id);
  watched.set(id, { limiter, budgets });
  if (watched.size > MAX_WATCHED) watched.delete(watched.keys().next().value as string);
}

/** Creates the gauge on `meter`, when the meter has observable gauges. */
export function queueDepthGauge(meter: Meter, name: string, label: string): void {
  const gauge = meter.createObservableGauge?.(name, {
    description: 'Calls waiting for their rate-limit slot, per budget and priority (every process, on Redis).',
    unit: '{call}',
  });
  gauge?.addCallback(async (result) => {
    const seen = new Set<string>();
    for (const [id, entry] of [...watched]) {
      const { limiter, budgets } = entry;
      const statuses = await (limiter as unknown as QueueStatusLimiter)[QUEUE_STATUS](budgets).catch(() => []);
      let waiting = 0;
      for (const [index, status] of statuses.entries()) {
        const budget = (budgets[index] as string).slice(0, 8);
        if (seen.has(budget)) continue;
        seen.add(budget);
        for (const priority of PRIORITIES) {
          const attributes: Attributes = { [label]: budget, priority };
          result.observe(status.waiting[priority], attributes);
          waiting += status.waiting[priority];
        }
      }
      // Reported at 0 once, then forgotten until a call of it waits again: unless a call watched it anew while its
      // status was read (that call may not have been counted yet).
      if (waiting === 0 && watched.get(id) === entry) watched.delete(id);
    }
  });
}
