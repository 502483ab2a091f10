import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { detectNodeCrypto } from '../../src/webhooks/crypto-backend.js';
import { DOCUMENT_EVENT, SECRET, signed } from './fixtures.js';

const SRC = fileURLToPath(new URL('../../src/webhooks/', import.meta.url));

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe('edge runtime readiness', () => {
  it('has no static import or require of a node: module anywhere in src/webhooks', () => {
    const files = readdirSync(SRC).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(10);
    for (const name of files) {
      const code = readFileSync(`${SRC}${name}`, 'utf8');
      expect(code, name).not.toMatch(/from\s+['"](node:)?(crypto|http|buffer|stream|net|fs)['"]/);
      expect(code, name).not.toMatch(/\bimport\(\s*['"]node:|\brequire\(/);
      expect(code, name).not.toMatch(/\bBuffer\./);
    }
  });

  it('finds node:crypto through process.getBuiltinModule, and nothing where that is missing or throws', () => {
    expect(detectNodeCrypto(process)).toBeDefined();
    expect(detectNodeCrypto(undefined)).toBeUndefined();
    expect(detectNodeCrypto({})).toBeUndefined();
    expect(
      detectNodeCrypto({
        getBuiltinModule: () => {
          throw new Error('not allowed');
        },
      }),
    ).toBeUndefined();
  });

  it('verifies with Web Crypto under auto when the runtime has no getBuiltinModule, and refuses a forced node path', async () => {
    // Signed with the Node path first, before the runtime is made to look like an edge one.
    const { body, signature } = signed(DOCUMENT_EVENT);
    vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    vi.resetModules();
    const edge = await import('../../src/webhooks/index.js');
    const crypto = await import('../../src/webhooks/crypto-backend.js');
    expect(crypto.resolveCryptoPath('auto')).toBe('webcrypto');
    await expect(edge.verifyWebhook(body, signature, SECRET)).resolves.toMatchObject({ known: true });
    await expect(edge.verifyWebhook(body, 'e'.repeat(64), SECRET)).rejects.toMatchObject({
      reason: 'signature_mismatch',
    });
    expect(() => crypto.resolveCryptoPath('node')).toThrow(/node:crypto is not available/);
    const handler = edge.createWebhookHandler({ secret: SECRET, onEvent: () => {} });
    const response = await handler(
      new Request('https://x.example/', { method: 'POST', body, headers: { 'x-signature': signature } }),
    );
    expect(response.status).toBe(200);
  });
});
