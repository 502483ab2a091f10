// The mock server's memory (issue 28.5): after REQUESTS requests of BODY_BYTES each over loopback HTTP, then with
// STALLED event-stream clients that never read (raw sockets) while MORE requests arrive. Prints figures; not a test.
// Run: npm run bench:mock-memory   (builds first; server and client share this process, which runs with --expose-gc)
// PACKAGE=/path/to/a/build measures another build of the package (its dist/testing.js), for example an older commit.
import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

if (typeof globalThis.gc !== 'function') {
  // Run again with --expose-gc, so every figure is taken after a full collection.
  const self = fileURLToPath(import.meta.url);
  const run = spawnSync(process.execPath, ['--expose-gc', self, ...process.argv.slice(2)], {
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  const oom = /heap out of memory/.test(run.stderr.toString());
  if (oom) console.log('the process died: JavaScript heap out of memory (the default heap limit of this Node)');
  else process.stderr.write(run.stderr);
  process.exit(run.status ?? 1);
}

const REQUESTS = Number(process.env.REQUESTS ?? 1500);
const BODY_BYTES = Number(process.env.BODY_BYTES ?? 500_000);
const STALLED = Number(process.env.STALLED ?? 40);
const MORE = Number(process.env.MORE ?? 100);
const PACKAGE = resolve(process.env.PACKAGE ?? fileURLToPath(new URL('..', import.meta.url)));
const { buildEwayBillModel, startMockServer } = await import(pathToFileURL(resolve(PACKAGE, 'dist/testing.js')).href);

const MiB = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
async function measure() {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await new Promise((done) => setTimeout(done, 50));
  }
  const { rss, heapUsed, external } = process.memoryUsage();
  return { rss, used: heapUsed + external };
}

const baseline = await measure();
const mock = await startMockServer({ rateLimit: false });
const body = JSON.stringify({ ...buildEwayBillModel(), note: 'x'.repeat(BODY_BYTES) });
const headers = { authorization: `Bearer ${mock.apiKey}`, 'content-type': 'application/json' };
const url = `${mock.baseUrl}/v2/ewaybill/${mock.service.addDocument()}`;
async function send(count) {
  for (let i = 0; i < count; i++) await (await fetch(url, { method: 'POST', headers, body })).arrayBuffer();
}

const show = (m) => `+${MiB(m.used - baseline.used)} heap+external, +${MiB(m.rss - baseline.rss)} RSS`;
console.log(
  `mock-server memory, node ${process.version}, ${process.platform}/${process.arch}, ${new Date().toISOString()}`,
);
console.log(`package: ${PACKAGE}`);
console.log('growth over the process before the mock started, each after a full GC:');
const t0 = performance.now();
for (let done = 0; done < REQUESTS; ) {
  const step = Math.min(250, REQUESTS - done);
  await send(step);
  done += step;
  const seconds = ((performance.now() - t0) / 1000).toFixed(0);
  console.log(`  after ${done} requests of ${BODY_BYTES} bytes (${seconds} s): ${show(await measure())}`);
}

// Event-stream clients that ask for the stream and never read it (no 'data' listener).
const port = Number(new URL(mock.dashboardUrl).port);
const sockets = Array.from({ length: STALLED }, () => {
  const socket = connect(port, '127.0.0.1');
  socket.write(`GET /_dashboard/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  return socket;
});
await new Promise((done) => setTimeout(done, 500));
await send(MORE);
const afterStalled = await measure();
const kept = mock.service.requests.filter((r) => r.body !== undefined).length;
for (const socket of sockets) socket.destroy();
await mock.close();

console.log(`  then ${STALLED} event-stream clients that never read, and ${MORE} more requests: ${show(afterStalled)}`);
console.log(`service.requests kept ${kept} bodies`);
