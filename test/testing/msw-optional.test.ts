import { ServiceClient } from 'invoicing-service-sdk';
import { buildEwayBillModel, createMockService, startMockServer } from 'invoicing-service-sdk/testing';
import { describe, expect, it } from 'vitest';
import { mswLoadError } from '../../src/testing/msw-error.js';

// That the kit loads and serves with msw absent is proven on the packed package, in a project without msw
// (scripts/test-package.mjs: "without msw"), and under Jest's CommonJS mode. Here: what `handlers` says when it
// cannot load msw, that it is built once, and that the two-argument addDocument and `url` still work.

describe('msw is optional', () => {
  it('says to install msw when it is missing (ESM and CommonJS codes)', () => {
    const esm = Object.assign(
      new Error("Cannot find package 'msw' imported from /app/node_modules/x/dist/testing.js"),
      {
        code: 'ERR_MODULE_NOT_FOUND',
      },
    );
    const cjs = Object.assign(new Error("Cannot find module 'msw'\nRequire stack: …"), { code: 'MODULE_NOT_FOUND' });
    for (const cause of [esm, cjs]) {
      const error = mswLoadError(cause);
      expect(error.message).toMatch(
        /service\.handlers needs msw; msw is not installed: run `npm install --save-dev msw`/,
      );
      expect(error.cause).toBe(cause);
    }
  });

  it("points Jest's CommonJS mode to the ESM recipe and to the ways that need no msw", () => {
    const jest = new Error('Must use import to load ES Module: /app/node_modules/msw/lib/core/index.mjs');
    expect(mswLoadError(jest).message).toMatch(
      // Issue 18.7: a link that works from an installed package (docs/ is not shipped), not a bare repository path.
      /Jest's ESM mode \(the README's 'Testing your integration' links the recipe: https:\/\/github\.com\/.*docs\/testing\.md#jest\).*startMockServer\(\) or service\.fetch/,
    );
    const node = Object.assign(new Error('require() of ES Module'), { code: 'ERR_REQUIRE_ESM' });
    expect(mswLoadError(node).message).toMatch(/Jest's ESM mode/);
  });

  it('passes any other failure on, with its message (a missing dependency of msw is not "msw is not installed")', () => {
    const inner = Object.assign(
      new Error("Cannot find package 'until-async' imported from /app/node_modules/msw/x.mjs"),
      {
        code: 'ERR_MODULE_NOT_FOUND',
      },
    );
    expect(mswLoadError(inner).message).toBe(
      "invoicing-service-sdk/testing: service.handlers needs msw; msw could not be loaded (Cannot find package 'until-async' imported from /app/node_modules/msw/x.mjs)",
    );
  });

  it('builds the handlers once, on first read, frozen', () => {
    const service = createMockService();
    const first = service.handlers;
    expect(service.handlers).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first).toHaveLength(1);
  });
});

describe('startMockServer: baseUrl', () => {
  it('is the base URL a ServiceClient takes; url is its deprecated alias with the same value', async () => {
    const mock = await startMockServer({ rateLimit: false });
    try {
      expect(mock.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/partner$/);
      expect(mock.url).toBe(mock.baseUrl);
      const client = new ServiceClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl });
      const result = await client.createEwayBill(mock.service.addDocument(), buildEwayBillModel());
      expect(result.success).toBe(true);
      expect(mock.service.documents()[0]?.ewayBill?.number).toMatch(/^\d{12}$/);
    } finally {
      await mock.close();
    }
  });
});

describe('addDocument options', () => {
  it('takes { companyId } alone, { hashId, companyId }, a hash id string, or nothing', () => {
    const service = createMockService();
    const other = service.addCompany({ id: 'other' });
    const random = service.addDocument({ companyId: other.companyId });
    expect(random).toMatch(/^doc_/);
    expect(service.getDocument(random)?.companyId).toBe('other');
    expect(service.addDocument({ hashId: 'INV-1', companyId: 'other' })).toBe('INV-1');
    expect(service.getDocument('INV-1')?.companyId).toBe('other');
    expect(service.addDocument('INV-2')).toBe('INV-2');
    expect(service.getDocument('INV-2')?.companyId).toBe(service.companyId);
    expect(service.getDocument(service.addDocument())?.companyId).toBe(service.companyId);
    expect(service.addDocument({})).toMatch(/^doc_/);
  });

  it('still takes the deprecated (hashId | undefined, { companyId }) form', () => {
    const service = createMockService();
    service.addCompany({ id: 'other' });
    expect(service.getDocument(service.addDocument(undefined, { companyId: 'other' }))?.companyId).toBe('other');
    expect(service.addDocument('INV-9', { companyId: 'other' })).toBe('INV-9');
    expect(service.getDocument('INV-9')?.companyId).toBe('other');
  });

  it('refuses what it cannot mean, naming the argument', () => {
    const service = createMockService();
    const add = service.addDocument as (...args: unknown[]) => string;
    expect(() => add({ companyid: 'x' })).toThrow(
      new TypeError('addDocument: unknown option companyid; the options are hashId and companyId'),
    );
    expect(() => add({ hashId: 7 })).toThrow(new TypeError('addDocument: hashId must be a string; got number'));
    expect(() => add(42)).toThrow(
      new TypeError('addDocument: options must be an object like { hashId, companyId }; got number'),
    );
    expect(() => add(null)).toThrow(/options must be an object/);
    expect(() => add({ hashId: 'a' }, { companyId: 'b' })).toThrow(/pass one options object/);
    expect(() => add('a', 'b')).toThrow(/second argument must be an object like \{ companyId \}/);
    expect(() => add({ companyId: 'nope' })).toThrow(/no company/);
    expect(service.documents()).toEqual([]);
  });
});
