// The estimate of a batch's time left (createEwayBills' `onProgress`, `etaMs`): the slowest lane's items left times
// its pace.
import type { BatchLanes, Lane } from './batch-lanes.js';

/** The service's limit: one call per second per key, the pace assumed before any is measured. */
const ASSUMED_PACE_MS = 1000;

/** Up to this many lanes (keys), the estimate is computed anew after each settle. */
const ETA_SCAN_LANES = 64;

/** With more lanes, the estimate is computed anew at most this often (milliseconds). */
const ETA_RESCAN_MS = 250;

/**
 * The estimate of `EwayBillBatchProgress.etaMs`: the slowest lane's unsettled items times its pace. It scans
 * every lane after each settle with a few keys, at most every ETA_RESCAN_MS with many (a scan per settle over 50,000
 * keys made a batch quadratic); in between, the last scan's estimate less the time since.
 */
export class BatchEstimate {
  #etaMs = 0;
  #etaAt = Number.NEGATIVE_INFINITY;

  constructor(readonly lanes: BatchLanes) {}

  /** Notes that the lane's key answered one of its items now: its pace. Refusals and aborts are not answers. */
  answered(lane: Lane): void {
    const now = performance.now();
    if (lane.answered === 0) lane.firstAt = now;
    lane.lastAt = now;
    lane.answered += 1;
  }

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
