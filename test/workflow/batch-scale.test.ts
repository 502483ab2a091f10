// A batch of 100,000 items over 50,000 keys stays linear: the progress estimate scanned every key's lane after each
// item settled (100,000 × 50,000 lane reads). The creators answer in-process: what is measured is the batch's own work,
// not the network (the loopback runs of many keys are in batch-keys.test.ts).
import { createEwayBills, type EwayBillBatchProgress, type EwayBillCreator } from 'invoicing-service-sdk';
import { describe, expect, it } from 'vitest';
import { validModel } from '../helpers/model.js';

const model = validModel();
const instant = (): EwayBillCreator => ({
  createEwayBill: async (docHashId) => ({ ewaybill_number: docHashId.length }) as never,
});

describe('a batch of 100,000 items over 50,000 keys', () => {
  // The time it takes is a figure of the machine (`npm run bench:batch` measures batches over many keys); here the
  // test's timeout only guards against a hang: a scan per settle (quadratic in the items) took minutes.
  it('settles in input order, with progress', async () => {
    const keys = 50_000;
    const clients = new Map<string, EwayBillCreator>();
    for (let k = 0; k < keys; k++) clients.set(`c${k}`, instant());
    const items = Array.from({ length: 100_000 }, (_, i) => ({ client: `c${i % keys}`, docHashId: `d${i}`, model }));
    let reports = 0;
    let last: EwayBillBatchProgress | undefined;
    const results = await createEwayBills(clients, items, {
      onProgress: (progress) => {
        reports += 1;
        last = progress;
      },
    });
    expect(results).toHaveLength(100_000);
    expect(results.every((r, i) => r.status === 'fulfilled' && r.docHashId === `d${i}`)).toBe(true);
    expect(reports).toBe(100_001);
    expect(last).toEqual({ done: 100_000, total: 100_000, failed: 0, etaMs: 0 });
  }, 60_000);
});
