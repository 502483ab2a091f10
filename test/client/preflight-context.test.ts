// Issue 12 item 5 / issue 14 item 3: a preflight finding names the document it is about.
import { ServiceClient } from 'invoicing-service-sdk';
import type { PreflightFinding } from 'invoicing-service-sdk/gst';
import { describe, expect, it } from 'vitest';
import { recordingFetch } from '../helpers/fake-fetch.js';
import { freshKey, validModel } from '../helpers/model.js';

describe('preflight findings through the client', () => {
  it('carry the docHashId of the call', async () => {
    const findings: PreflightFinding[] = [];
    const { fetch } = recordingFetch(() => Response.json({ success: true, message: 'ok' }));
    const client = new ServiceClient({
      apiKey: freshKey('pf'),
      baseUrl: 'https://service.test/api',
      fetch,
      rateLimiter: { acquire: async () => undefined },
      onWarning: (finding) => findings.push(finding),
    });
    await client.createEwayBill('invoice-77', validModel({ vehicle_number: 'NOT A PLATE' }));
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.every((f) => f.docHashId === 'invoice-77')).toBe(true);
  });
});
