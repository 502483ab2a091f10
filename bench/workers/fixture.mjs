// What the client-side workers share: a valid e-way bill model (built here, so the testing kit and msw are not
// loaded into a measured process), a stub fetch, and a rate limiter that never waits.
import { GCProfiler, getHeapStatistics } from 'node:v8';

const today = new Date();
const pad = (n) => String(n).padStart(2, '0');

/** A model that passes the schema and the preflight (no warnings), as the testing kit's fixture. */
export const model = {
  supply_type: 'Outward',
  sub_supply_type: 'Supply',
  transporter_doc_date: `${pad(today.getDate())}-${pad(today.getMonth() + 1)}-${today.getFullYear()}`,
  transport_mode: 'Road',
  vehicle_type: 'Regular',
  vehicle_number: 'MH12AB1234',
  transporter_name: 'Deccan Roadways',
  transporter_doc_number: 'LR-1001',
  dispatch_from: {
    addr_id: 1,
    address_line1: '12 MG Road',
    address_line2: 'Camp',
    city: 'Pune',
    state: 'MAHARASHTRA',
    country: 'India',
    pincode: '411001',
  },
  dispatch_to: {
    addr_id: 2,
    address_line1: '4 Park Street',
    address_line2: 'Park Circus',
    city: 'Kolkata',
    state: 'WEST BENGAL',
    country: 'India',
    pincode: '700016',
  },
};

export const SUCCESS_BODY = JSON.stringify({ success: true, message: 'E-way bill generated' });

/** A fetch that answers the service's success answer at once, without any network. */
export const stubFetch = async () =>
  new Response(SUCCESS_BODY, { status: 200, headers: { 'content-type': 'application/json' } });

/**
 * The stub fetch that reads its request as the runtime's fetch does: Node's fetch (undici) builds a `Request` from
 * its arguments (the URL parsed, the headers checked, the body made a stream) before anything is written. The plain
 * stub skips that, so a client that builds its `Request` itself (as ky does) pays for it and a bare `fetch(url, init)`
 * does not; with this one both pay what a real fetch makes every caller pay.
 */
export const requestStubFetch = async (input, init) => {
  if (input !== undefined) new Request(input, init);
  return stubFetch();
};

/** A rate limiter that lets every request start at once: measures the client's own work, not its waiting. */
export const noWaitLimiter = { acquire: async () => undefined };

/** Fails the worker loudly when the SDK's failure would otherwise turn into a figure. */
export function check(condition, message) {
  if (!condition) {
    console.error(`benchmark check failed: ${message}`);
    process.exit(2);
  }
}

/** Prints one JSON line for the driver. */
export const report = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

/** Full GC twice (weak references and finalizers settle on the second), then the heap in bytes. */
export async function heapAfterGc() {
  for (let i = 0; i < 2; i++) {
    globalThis.gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

/**
 * Counts the bytes allocated on the JS heap from now to `stop()`: what the heap grew by, plus what every garbage
 * collection in between freed (v8's GCProfiler reports the heap before and after each one), and the time spent in GC.
 * Node has no total-allocated counter; this is exact up to what is freed by the last GC's sweeping after `stop()`.
 */
export function startAllocation() {
  const profiler = new GCProfiler();
  const usedAtStart = getHeapStatistics().used_heap_size;
  profiler.start();
  return {
    stop() {
      const usedAtEnd = getHeapStatistics().used_heap_size;
      const { statistics } = profiler.stop();
      let freed = 0;
      let gcMicros = 0;
      // The most the heap held (live and garbage) when a GC started, and the most it had reserved: what V8 grew to.
      let peakUsed = usedAtEnd;
      let peakTotal = 0;
      for (const gc of statistics) {
        freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
        gcMicros += gc.cost;
        peakUsed = Math.max(peakUsed, gc.beforeGC.heapStatistics.usedHeapSize);
        peakTotal = Math.max(peakTotal, gc.beforeGC.heapStatistics.totalHeapSize);
      }
      return {
        allocated: usedAtEnd - usedAtStart + freed,
        gcMs: gcMicros / 1000,
        gcCount: statistics.length,
        peakUsed,
        peakTotal,
      };
    },
  };
}
