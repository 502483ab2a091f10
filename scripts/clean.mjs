// Removes the build output before a build (tsup runs the ESM and CJS builds in parallel, so neither may clean).
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
