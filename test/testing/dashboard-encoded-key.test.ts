// Issue 28.9, in the mock's dashboard: it redacted the credential a request sent only as it is, so a request that also
// carried it percent-encoded (a field an application built with encodeURIComponent) showed it in its row. A production
// key (base64, with / + =) sent to the mock by mistake is the case: the mock's own keys are JWTs, which
// percent-encoding leaves as they are. Against the real mock server on loopback, read through the dashboard.
import { startMockServer } from 'invoicing-service-sdk/testing';
import { describe, expect, it } from 'vitest';

/** A production key of another shape than the mock's: `/`, `+` and `=` are what percent-encoding rewrites. */
const KEY = 'tamarind/mangosteen+jackfruit==';

describe('the mock dashboard', () => {
  it('shows no percent-encoded copy of a credential in a request row', async () => {
    const mock = await startMockServer({ rateLimit: false });
    try {
      const encoded = encodeURIComponent(KEY);
      const response = await fetch(`${mock.baseUrl}/v2/doc?token=${encoded}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ note: `token=${encoded}`, twice: encodeURIComponent(encoded) }),
      });
      expect(response.status).toBe(401);
      const state = await (await fetch(new URL('/_dashboard/state', mock.dashboardUrl))).text();
      const rows = (JSON.parse(state) as { requests: { request: string }[] }).requests;
      expect(rows).toHaveLength(1);
      expect(rows[0]?.request).toContain('"note": "token=[redacted]"');
      expect(rows[0]?.request).toContain('"twice": "[redacted]"');
      for (const copy of [KEY, encoded, 'mangosteen']) expect(state).not.toContain(copy);
    } finally {
      await mock.close();
    }
  });
});
