// The runtime smoke suite: the built SDK (dist/index.js) on Node 24, Node 22, Bun, Deno and workerd (Cloudflare
// Workers' runtime, through Miniflare), each against a loopback mock of the service started here (node:http on
// 127.0.0.1), and each verifying a signed webhook. Every runtime comes from a registry package: `node` (24, a
// devDependency), and, installed on first use into a cache outside node_modules (scripts/toolchain.mjs), Node 22
// (node-<platform>-<arch>@22, scripts/node22.mjs) and `bun`, `deno` and `miniflare` (which brings `workerd`), locked by
// test/runtimes/toolchain/package-lock.json.
// Builds first when dist/ is missing. Fails (exit 1) on any problem. Run with `npm run test:runtimes`.
import { execFile, execFileSync } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { build } from 'esbuild';
import { ensureNode22 } from './node22.mjs';
import { ensureToolchain } from './toolchain.mjs';

const root = new URL('..', import.meta.url).pathname;
const RUN_LIMIT_MS = 60_000;
const version = (binary, args = ['--version']) =>
  execFileSync(binary, args, { encoding: 'utf8' }).trim().split('\n')[0].replace(/^v/, '');

if (!existsSync(join(root, 'dist/index.js')) || !existsSync(join(root, 'dist/testing.js'))) {
  console.log('dist/ is missing: building');
  execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build', '--silent'], {
    cwd: root,
    stdio: 'inherit',
  });
}
// Node 22, Bun, Deno and Miniflare are installed on first use (before the runs start, so install time is not counted
// in a run's limit); later runs find them in the cache.
const installStarted = Date.now();
const toolchain = ensureToolchain(root);
const node22 = ensureNode22(root);
const installMs = Date.now() - installStarted;
if (installMs > 1000) console.log(`installed the runtimes into ${toolchain.dir} in ${installMs} ms`);
const { Miniflare } = await import(pathToFileURL(toolchain.miniflare).href);
const { buildDocumentEvent } = await import(new URL('../dist/testing.js', import.meta.url).href);

// The mock (scripts/runtime-smoke-mock.mjs) runs in a worker thread: it stamps each arrival (Date.now()) on an event loop
// of its own, which the runs' work here (Miniflare, esbuild) cannot hold up.
const keys = new Map(); // key -> the requests it made
const mock = new Worker(new URL('./runtime-smoke-mock.mjs', import.meta.url));
const flushes = []; // the resolvers of the flushes asked, in order (the mock answers them in order)
mock.on('message', (message) => {
  if (message.listening) return;
  if (message.flushed) return flushes.shift()?.();
  keys.get(message.key)?.push(message.record);
});
const port = await new Promise((resolve, reject) => {
  mock.once('error', reject);
  mock.on('message', (message) => message.listening && resolve(message.listening));
});
/** Resolves once every arrival the mock has stamped so far has reached `keys`. */
const flush = () =>
  new Promise((resolve) => {
    flushes.push(resolve);
    mock.postMessage('flush');
  });
const baseUrl = `http://127.0.0.1:${port}/api/partner/`;

/** One runtime's config: its own key, document and signed webhook. */
function configFor(name) {
  const apiKey = `runtime-smoke-${name}-${randomUUID()}`;
  keys.set(apiKey, []);
  const docHashId = `DOC-${name}-1`;
  const secret = `whsec_${randomUUID()}`;
  const event = buildDocumentEvent({ data: { hash_id: docHashId } }); // the spec's envelope, a fresh event_id
  const body = JSON.stringify(event);
  const signature = createHmac('sha256', secret).update(body).digest('hex');
  return { baseUrl, apiKey, docHashId, webhook: { body, signature, secret }, eventId: event.event_id };
}

function runProcess(binary, args, config) {
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      args,
      {
        cwd: root,
        timeout: RUN_LIMIT_MS,
        env: { ...process.env, SMOKE_CONFIG: JSON.stringify(config), NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
      },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${error.message}\n${stderr}`));
        try {
          resolve(JSON.parse(stdout.trim().split('\n').at(-1)));
        } catch {
          reject(new Error(`no JSON result; stdout: ${stdout}\nstderr: ${stderr}`));
        }
      },
    );
  });
}

async function runWorkerd(config) {
  const bundled = await build({
    entryPoints: [join(root, 'test/runtimes/worker-entry.mjs')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['worker', 'browser'],
    write: false,
    logLevel: 'silent',
  });
  const mf = new Miniflare({ modules: true, script: bundled.outputFiles[0].text, compatibilityDate: '2025-09-01' });
  try {
    const response = await mf.dispatchFetch('http://smoke.test/', {
      method: 'POST',
      body: JSON.stringify(config),
      signal: AbortSignal.timeout(RUN_LIMIT_MS),
    });
    const result = await response.json();
    if (result.error) throw new Error(result.error);
    return result;
  } finally {
    await mf.dispose();
  }
}

const entry = 'test/runtimes/cli-entry.mjs';
const runtimes = [
  ['node', () => `Node ${process.versions.node}`, (config) => runProcess(process.execPath, [entry], config)],
  ['node22', () => `Node ${version(node22)}`, (config) => runProcess(node22, [entry], config)],
  ['bun', () => `Bun ${version(toolchain.bun)}`, (config) => runProcess(toolchain.bun, ['run', entry], config)],
  [
    'deno',
    () =>
      `Deno ${
        version(toolchain.deno)
          .replace(/^deno /, '')
          .split(' ')[0]
      }`,
    (config) =>
      runProcess(
        toolchain.deno,
        ['run', '--quiet', '--allow-net=127.0.0.1', '--allow-env', `--allow-read=${root}`, entry],
        config,
      ),
  ],
  ['workerd', () => `workerd ${toolchain.workerdVersion} (Miniflare)`, runWorkerd],
];

function check(name, config, result) {
  const problems = [];
  const expect = (ok, what) => {
    if (!ok) problems.push(what);
  };
  expect(result.created?.success === true && result.created.message === 'E-way bill generated', 'createEwayBill');
  expect(
    result.again?.portalError && result.again.serviceError && result.again.portalCode === 604,
    'a second bill is a PortalError 604',
  );
  expect(result.again?.alreadyGenerated === true, 'isAlreadyGenerated');
  expect(result.invalid?.validationError && result.invalid.field === 'transport_mode', 'a ValidationError');
  expect(
    result.webhook?.eventType === 'document' &&
      result.webhook.eventId === config.eventId &&
      result.webhook.hashId === config.docHashId,
    'verifyWebhook returns the event',
  );
  expect(result.forged?.verificationError === true, 'a changed body fails verification');
  expect(result.signedHere === true, 'signWebhookAsync gives the same signature');
  expect(
    result.handler?.delivered === 200 &&
      result.handler.duplicate === 200 &&
      result.handler.forged === 401 &&
      JSON.stringify(result.handler.received) === JSON.stringify([config.eventId]),
    `createWebhookHandler: 200, a duplicate 200 without onEvent, a forgery 401; got ${JSON.stringify(result.handler)}`,
  );
  const seen = keys.get(config.apiKey);
  expect(seen.length === 2, `the mock got 2 requests (the invalid model is never sent), got ${seen.length}`);
  // The default rate limiter on this runtime (interval 1000 ms, margin 25): what it decided is when the SDK handed each
  // request to fetch, so those moments must be at least interval + margin (1025 ms) apart; without the limiter the second
  // would follow the first by a few ms. They are measured on the clock the limiter spaces starts on, the runtime's
  // monotonic `performance.now()` (result.sendsMono). This holds whatever the load, by construction, since every read is
  // of that one clock: the first request's last `sent()` comes after its stamp (once fetch has returned, or on Node when
  // undici has written it), the second's grant is 1025 ms after that `sent()` or later, and its stamp after its grant.
  // Before the client reported `sent()` after fetch returned, a process paused between the report and the stamp (or
  // loading node:diagnostics_channel there, on Bun and Deno) put them 992 to 1015 ms apart under `npm run test:stress`
  // (Bun and Deno; 855 ms by Date.now() once). The mock's stamps are evidence that the requests are the ones sent, not
  // of the spacing: each arrived no earlier than it was sent (the wall clock, Date.now(), on one machine). The gap
  // between the two arrivals is not checked: a first stamp that came late (a busy machine, a connection set-up the
  // second did not need) shrinks it whatever the SDK did.
  const sends = Array.isArray(result.sends) ? result.sends : [];
  const mono = Array.isArray(result.sendsMono) ? result.sendsMono : [];
  expect(
    sends.length === 2 && mono.length === 2,
    `the SDK handed 2 requests to fetch (the invalid model is never sent), got ${sends.length}`,
  );
  const sendGap = mono.length === 2 ? mono[1] - mono[0] : Number.NaN;
  expect(
    sendGap >= 1025 - 1e-6, // 1 ns: the rounding of two subtractions of one clock's readings
    `the key's two requests were sent at least 1025 ms apart (performance.now()), got ${sendGap.toFixed(1)} ms (Date.now(): ${sends[1] - sends[0]} ms)`,
  );
  expect(
    seen.length === sends.length && seen.every((r, i) => r.at >= sends[i]),
    `each request arrived no earlier than it was sent: sent ${JSON.stringify(sends)}, arrived ${JSON.stringify(seen.map((r) => r.at))}`,
  );
  expect(
    seen.every(
      (r) =>
        r.method === 'POST' &&
        r.url === `/api/partner/v2/ewaybill/${config.docHashId}` &&
        /^application\/json/.test(r.contentType ?? '') &&
        r.body?.transport_mode === 'Road',
    ),
    'each request is a JSON POST to the document',
  );
  // Each runtime runs twice: without OpenTelemetry (no span, no traceparent), and with the OTel SDK registered by the
  // application (test/runtimes/otel-setup.mjs): one span per call that was sent, and its traceparent on each request.
  expect(Boolean(result.spans) === Boolean(config.otel), 'spans exactly when OpenTelemetry is registered');
  if (result.spans) {
    const spans = JSON.stringify(result.spans);
    const call = 'POST /v2/ewaybill/{doc_hash_id}';
    // Then the webhook handler's CONSUMER spans: the delivery, its duplicate, the forgery.
    const deliveries = [
      { name: 'webhook document' },
      { name: 'webhook document' },
      { name: 'webhook', error: 'WEBHOOK_VERIFICATION_FAILED' },
    ];
    expect(
      spans === JSON.stringify([{ name: call }, { name: call, error: 'PORTAL_ERROR' }, ...deliveries]),
      `two call spans and three delivery spans, got ${spans}`,
    );
    expect(
      seen.every((r) => /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/.test(r.traceparent ?? '')),
      'each request carries the W3C traceparent',
    );
  } else {
    expect(
      seen.every((r) => r.traceparent === undefined),
      'without OpenTelemetry registered, no traceparent',
    );
  }
  if (problems.length) throw new Error(`${name}: ${problems.join('; ')}\nresult: ${JSON.stringify(result)}`);
}

// RUNTIMES=bun,deno runs only those (for a quick check); all of them by default.
const only = process.env.RUNTIMES?.split(',').filter(Boolean);
if (only?.length) runtimes.splice(0, runtimes.length, ...runtimes.filter(([name]) => only.includes(name)));

let passed = 0;
let failed = 0;
const started = Date.now();
try {
  // The labels run `--version` synchronously: read them before the runs start, so that no run waits for them.
  const titles = new Map(runtimes.map(([name, label]) => [name, label()]));
  const runs = runtimes.flatMap((runtime) => [false, true].map((otel) => [runtime, otel]));
  const outcomes = await Promise.allSettled(
    runs.map(async ([[name, , run], otel]) => {
      const config = { ...configFor(otel ? `${name}-otel` : name), otel };
      const t0 = Date.now();
      const result = await run(config);
      await flush();
      const title = titles.get(name);
      check(title, config, result);
      const traced = otel ? `with OpenTelemetry registered: ${result.spans.length} spans` : 'without OpenTelemetry';
      const gap = (result.sendsMono[1] - result.sendsMono[0]).toFixed(0);
      const wall = result.sends[1] - result.sends[0];
      return `${title}: client against the loopback mock (bill, 604, validation; sent ${gap} ms apart, ${wall} ms by Date.now()), a verified webhook and the webhook handler, ${traced}, ${Date.now() - t0} ms`;
    }),
  );
  for (const [i, outcome] of outcomes.entries()) {
    if (outcome.status === 'fulfilled') {
      passed += 1;
      console.log(`ok: ${outcome.value}`);
    } else {
      failed += 1;
      const [[name], otel] = runs[i];
      console.error(`FAILED ${name}${otel ? ' (OpenTelemetry)' : ''}: ${outcome.reason?.stack ?? outcome.reason}`);
    }
  }
} finally {
  await mock.terminate();
}
console.log(`\nall runtimes took ${Date.now() - started} ms`);
console.log(`runtimes: ${passed} passed, ${failed} failed`);
if (failed > 0) process.exit(1);
