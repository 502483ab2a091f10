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
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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

// The mock: POST {prefix}/v2/ewaybill/{doc} with a known Bearer key; one e-way bill per document, then 604.
const keys = new Map(); // key -> the requests it made
const generated = new Set();
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const answer = (status, body) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const match = /^\/api\/partner\/v2\/ewaybill\/([^/]+)$/.exec(req.url ?? '');
    if (key === undefined || !keys.has(key)) return answer(401, { success: false, error_code: 'UNAUTHORIZED' });
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = undefined;
    }
    keys.get(key).push({
      method: req.method,
      url: req.url,
      contentType: req.headers['content-type'],
      traceparent: req.headers.traceparent,
      body,
    });
    if (req.method !== 'POST' || !match) return answer(404, { success: false, error_code: 'NOT_FOUND' });
    const doc = decodeURIComponent(match[1]);
    if (generated.has(doc)) {
      return answer(400, {
        success: false,
        error_code: 'PORTAL_ERROR_604',
        message: 'E-way bill is already generated for this document',
        errors: {},
      });
    }
    generated.add(doc);
    return answer(200, { success: true, message: 'E-way bill generated' });
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${server.address().port}/api/partner/`;

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
  const seen = keys.get(config.apiKey);
  expect(seen.length === 2, `the mock got 2 requests (the invalid model is never sent), got ${seen.length}`);
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
    expect(
      spans === JSON.stringify([{ name: call }, { name: call, error: 'PORTAL_ERROR' }]),
      `two call spans, got ${spans}`,
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
  const runs = runtimes.flatMap((runtime) => [false, true].map((otel) => [runtime, otel]));
  const outcomes = await Promise.allSettled(
    runs.map(async ([[name, label, run], otel]) => {
      const config = { ...configFor(otel ? `${name}-otel` : name), otel };
      const t0 = Date.now();
      const result = await run(config);
      const title = label();
      check(title, config, result);
      const traced = otel ? `with OpenTelemetry registered: ${result.spans.length} spans` : 'without OpenTelemetry';
      return `${title}: client against the loopback mock (bill, 604, validation) and a verified webhook, ${traced}, ${Date.now() - t0} ms`;
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
  server.close();
}
console.log(`\nall runtimes took ${Date.now() - started} ms`);
console.log(`runtimes: ${passed} passed, ${failed} failed`);
if (failed > 0) process.exit(1);
