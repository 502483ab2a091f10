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
    // Two workers on a 2-core machine (issue 27: the largest value for which the suite passes under load). Measured on
    // a shared 2-core machine whose load average other work kept at 8 to 21 (1-minute), 1,585 tests:
    //   `npx vitest run --maxWorkers=2`: 298 s, 2 failed (Chromium's 8 s waits, since made hang guards; load 14-15);
    //   `npx vitest run --maxWorkers=4`: 346 s, 3 failed (a 20 s test timeout and two load-dependent checks, since
    //   fixed; load 11-21);
    //   `npx vitest run --maxWorkers=2` after those fixes: 184 s, all passed (load 8-11).
    // On a loaded machine four workers were not faster (CPU about 80 s either way) and doubled the contention for the
    // tests that wait on real time. The integrator's 5 × 5 `npm run test:stress` runs confirm the value.
    // VITEST_MAX_WORKERS overrides it.
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
