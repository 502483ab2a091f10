import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(`${ROOT}${path}`, 'utf8');

describe('webhook examples and docs', () => {
  it.each(['express.ts', 'fastify.ts', 'node-http.ts'])(
    'tells how to run examples/webhooks/%s with the Node 24 of node_modules after a build',
    (file) => {
      // The header comment: every line before the first import.
      const header = read(`examples/webhooks/${file}`).split('\nimport ')[0] ?? '';
      expect(header).toContain('npm run build');
      expect(header).toContain(`npx node examples/webhooks/${file}`);
      // The system node may be older than the Node 24 the SDK needs; a bare `node` run is not what works here.
      expect(header).not.toMatch(/(^|[^x] )node (--|examples)/m);
      expect(header).not.toContain('--experimental-strip-types');
    },
  );

  it('says the handler always passes the dedupe token and claims no older store API', () => {
    const docs = read('docs/webhooks.md');
    expect(docs).not.toMatch(/store written for \d+\.\d+\.\d+/i);
    expect(docs).toContain('always passes the token');
  });
});
