// Issue 18.7: the examples a reader sees in an editor's hover must work. Each JSDoc example of the client that builds a
// model is read from the source, evaluated, and sent through a real ServiceClient to the mock server with the
// preflight in strict mode, so a warning (a road transport without a vehicle, say) fails here instead of in a partner's
// first try.
import { readFileSync } from 'node:fs';
import { ServiceClient } from 'invoicing-service-sdk';
import { startMockServer } from 'invoicing-service-sdk/testing';
import { describe, expect, it } from 'vitest';

/** The object literal passed as the model in the first `@example` that calls `createEwayBill('doc_hash_id', {...})`. */
function exampleModel(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').map((line) => line.replace(/^\s*\* ?/, ''));
  const joined = lines.join('\n');
  const start = joined.indexOf("createEwayBill('doc_hash_id', {");
  expect(start, `no createEwayBill example in ${file}`).toBeGreaterThan(-1);
  const open = joined.indexOf('{', start);
  const close = joined.indexOf('\n});', open);
  const literal = joined
    .slice(open, close + 2)
    .split('\n')
    .map((line) => line.replace(/\s\/\/.*$/, ''))
    .join('\n');
  return new Function(`return (${literal});`)();
}

describe('JSDoc examples run against the mock', () => {
  it("ServiceClient.createEwayBill's example generates a bill with the preflight in strict mode", async () => {
    const model = exampleModel('src/client/service-client.ts');
    const mock = await startMockServer();
    try {
      const client = new ServiceClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, preflight: 'strict' });
      const hashId = mock.service.addDocument();
      const result = await client.createEwayBill(hashId, model as never);
      expect(result.success).toBe(true);
      expect(result.ewayBillNumber).toMatch(/^\d{12}$/);
    } finally {
      await mock.close();
    }
  });
});
