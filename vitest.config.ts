import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (p: string) => fileURLToPath(new URL(`./src/${p}`, import.meta.url));

export default defineConfig({
  define: { __SDK_VERSION__: JSON.stringify(process.env.npm_package_version ?? '0.0.0-test') },
  resolve: {
    // Tests import the package by its public name, as users do.
    alias: [
      { find: /^invoicing-service-sdk$/, replacement: src('index.ts') },
      { find: /^invoicing-service-sdk\/(.+)$/, replacement: src('$1/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
