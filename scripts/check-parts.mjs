// The first step of `npm test`: the suite drives a real redis-server (test/redis) and a real Chromium
// (test/testing/dashboard-browser.test.ts). Without them it would fail only after minutes, deep in vitest; this says
// so at once, one line per missing part with the command that installs it, and exits non-zero. No process is
// spawned: it only looks for the executables, so it takes milliseconds.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Whether `file` is an executable regular file. */
function executable(file) {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Whether `name` is an executable on the PATH. */
const onPath = (name) =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => executable(join(dir, name)));

const missing = [];
if (!onPath('redis-server')) {
  missing.push('redis-server is not on the PATH (test/redis needs it): apt-get install -y redis-server');
}
// The browser tests launch CHROMIUM_PATH, else /usr/bin/chromium (Debian's package).
const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
if (!executable(chromium)) {
  missing.push(
    process.env.CHROMIUM_PATH
      ? `Chromium is not at CHROMIUM_PATH=${chromium} (the dashboard's browser tests need it): point CHROMIUM_PATH at a Chromium, or unset it and apt-get install -y chromium`
      : `Chromium is not at ${chromium} (the dashboard's browser tests need it): apt-get install -y chromium (or set CHROMIUM_PATH to a Chromium)`,
  );
}
if (missing.length > 0) {
  for (const line of missing) console.error(`invoicing-service-sdk tests: ${line}`);
  process.exit(1);
}
