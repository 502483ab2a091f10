import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildEwayBillModel } from 'invoicing-service-sdk/testing';
import { verifyWebhook } from 'invoicing-service-sdk/webhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, runCli } from './cli-process.js';

const SECRET = 'whsec_cli_test_9f8e7d6c5b4a';
const KEY = 'eyJhbGciOiJIUzI1NiJ9.eyJraWQiOiJjbGkifQ.c3RhYmxlLWtleS1vZi10aGUtY2xpLXRlc3Q';

let cli: Awaited<ReturnType<typeof buildCli>>;
let dir: string;
beforeAll(async () => {
  cli = await buildCli();
  dir = mkdtempSync(join(process.cwd(), '.tmp', 'webhook-cli-'));
}, 60_000);
afterAll(() => {
  cli?.remove();
  rmSync(dir, { recursive: true, force: true });
});

interface Received {
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
}

/** A webhook receiver on 127.0.0.1 that keeps every raw body and answers with `answer`. */
async function startReceiver(answer: { status: number; body: string } = { status: 200, body: '{"received":true}' }) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const noSecret = (text: string) => expect(text).not.toContain(SECRET);

describe('invoicing-service-sdk send-webhook', () => {
  it('signs a sample document event, sends it, and prints the answer with the secret redacted', async () => {
    receiver = await startReceiver({ status: 200, body: `{"received":true,"echo":"${SECRET}"}` });
    const run = runCli(cli.file, ['send-webhook', '--url', receiver.url, '--secret', SECRET, '--type', 'document']);
    expect(await run.exit()).toBe(0);
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received as [Received];
    expect(delivery.headers['content-type']).toBe('application/json');
    const event = await verifyWebhook(delivery.body, delivery.headers['x-signature'] as string, SECRET);
    expect(event.event_type).toBe('document');
    expect(run.stdout()).toContain(`document event ${event.event_id}`);
    expect(run.stdout()).toMatch(/Receiver answered 200 OK/);
    expect(run.stdout()).toContain("[the receiver's answer is not shown: it holds the webhook secret");
    noSecret(run.stdout());
    noSecret(run.stderr());
    // --secret on the command line works, with a warning that it shows in `ps`.
    expect(run.stderr()).toMatch(/--secret puts the secret in `ps`/);
  });

  // Issue 17.9: a receiver that echoes the secret escaped, encoded, or across the 4,000-character cut.
  it.each([
    [
      '\\u-escaped',
      (secret: string) =>
        JSON.stringify({
          echo: [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
        }),
    ],
    [
      'URL-encoded',
      (secret: string) =>
        `token=${[...secret].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')}`,
    ],
    ['across the cut', (secret: string) => `${'x'.repeat(3995)}${secret}`],
    // Issue 28.9: a lone % made the whole text fail to URL-decode, and the encoded echo was printed.
    [
      'URL-encoded next to a lone %',
      (secret: string) => `100% received, token=${[...secret].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}`,
    ],
    ['as HTML character references', (secret: string) => [...secret].map((c) => `&#${c.charCodeAt(0)};`).join('')],
  ])('never prints the secret or a prefix of it when the receiver echoes it %s', async (_how, echo) => {
    const body = echo(SECRET).replace(/\\\\u/g, '\\u');
    receiver = await startReceiver({ status: 200, body });
    const run = runCli(cli.file, ['send-webhook', '--url', receiver.url, '--type', 'document'], {
      WEBHOOK_SECRET: SECRET,
    });
    expect(await run.exit()).toBe(0);
    noSecret(run.stdout());
    expect(run.stdout()).not.toContain(SECRET.slice(0, 10));
    expect(run.stdout()).toContain("[the receiver's answer is not shown");
  });

  it('merges the data fields of --data into an inventory event, taking the secret from WEBHOOK_SECRET', async () => {
    receiver = await startReceiver();
    const file = join(dir, 'inventory-data.json');
    writeFileSync(file, JSON.stringify({ qty: 99, movement: 'out', partner_product_id: -1 }));
    const run = runCli(cli.file, ['send-webhook', '--url', receiver.url, '--type', 'inventory', '--data', file], {
      WEBHOOK_SECRET: SECRET,
    });
    expect(await run.exit()).toBe(0);
    const [delivery] = receiver.received as [Received];
    const event = await verifyWebhook(delivery.body, delivery.headers['x-signature'] as string, SECRET);
    expect(event).toMatchObject({
      event_type: 'inventory',
      data: { qty: 99, movement: 'out', partner_product_id: -1 },
    });
  });

  it('sends a whole event from --data byte for byte, signed over those bytes', async () => {
    receiver = await startReceiver();
    const file = join(dir, 'event.json');
    const raw =
      '{ "event_id": "0b7c6a52-5c1e-4d0f-9a43-6c1f1a2b3c4d",\n  "event_type": "document",\n  "data": { "document_type": "invoice", "serial_number": "INV-9", "hash_id": "doc_9", "message": "Document created", "timestamp": "2026-11-21 10:30:00.000000" } }\n';
    writeFileSync(file, raw);
    const run = runCli(cli.file, ['send-webhook', '--url', receiver.url, '--secret', SECRET, '--data', file]);
    expect(await run.exit()).toBe(0);
    const [delivery] = receiver.received as [Received];
    expect(delivery.body).toBe(raw);
    await expect(verifyWebhook(delivery.body, delivery.headers['x-signature'] as string, SECRET)).resolves.toBeTruthy();
  });

  it('exits 1 and prints the status and body when the receiver refuses', async () => {
    receiver = await startReceiver({ status: 401, body: '{"error":"invalid signature"}' });
    const run = runCli(cli.file, ['send-webhook', '--url', receiver.url, '--secret', SECRET, '--type', 'document']);
    expect(await run.exit()).toBe(1);
    expect(run.stdout()).toMatch(/Receiver answered 401 Unauthorized/);
    expect(run.stdout()).toContain('{"error":"invalid signature"}');
    expect(run.stderr()).toMatch(/did not accept the event/);
  });

  it('exits 1 with a clear message when nothing listens at the URL', async () => {
    receiver = await startReceiver();
    const url = receiver.url;
    await receiver.close();
    receiver = undefined;
    const run = runCli(cli.file, ['send-webhook', '--url', url, '--secret', SECRET, '--type', 'document']);
    expect(await run.exit()).toBe(1);
    expect(run.stderr()).toMatch(/Could not deliver to http:\/\/127\.0\.0\.1:\d+\/webhooks: ECONNREFUSED/);
  });

  it.each([
    [['send-webhook', '--url', 'http://127.0.0.1:9/x', '--type', 'document'], /needs the webhook secret/],
    [['send-webhook', '--url', 'ftp://x', '--type', 'document'], /--url must be an absolute http\(s\) URL/],
    [
      ['send-webhook', '--url', 'http://127.0.0.1:9/x', '--type', 'invoice'],
      /--type must be 'document' or 'inventory'/,
    ],
    [
      [
        'send-webhook',
        '--url',
        'http://127.0.0.1:9/x',
        '--secret',
        's',
        '--data',
        '/nonexistent.json',
        '--type',
        'document',
      ],
      /Could not read --data/,
    ],
  ])('exits 2 with a usage message for %j', async (args, message) => {
    const run = runCli(cli.file, args, { WEBHOOK_SECRET: '' });
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toMatch(message);
  });
});

describe('invoicing-service-sdk mock-server with --api-key and --webhook-url', () => {
  it('keeps the given key across restarts and posts a signed document event per generated e-way bill', async () => {
    receiver = await startReceiver();
    for (const doc of ['doc_demo_0001', 'doc_demo_0002']) {
      const run = runCli(cli.file, relayArgs(receiver.url));
      try {
        const [, url] = await run.waitFor(/Base URL:\s+(\S+)/);
        const [, key] = await run.waitFor(/SERVICE_API_KEY=(\S+)/);
        expect(key).toBe(KEY);
        const response = await fetch(`${url}/v2/ewaybill/${doc}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify(buildEwayBillModel()),
        });
        expect(response.status).toBe(200);
        await run.waitFor(new RegExp(`webhook document \\S+ for ${doc} -> 200`));
        run.child.kill('SIGTERM');
        expect(await run.exit()).toBe(0);
        noSecret(run.stdout());
        noSecret(run.stderr());
      } finally {
        run.child.kill('SIGKILL');
      }
    }
    expect(receiver.received).toHaveLength(2);
    const events = await Promise.all(
      receiver.received.map((r) => verifyWebhook(r.body, r.headers['x-signature'] as string, SECRET)),
    );
    expect(events.map((e) => e.event_type === 'document' && e.data.hash_id)).toEqual([
      'doc_demo_0001',
      'doc_demo_0002',
    ]);
    expect(events.map((e) => e.event_type === 'document' && e.data.message)).toEqual([
      'E-way bill generated',
      'E-way bill generated',
    ]);
  }, 30_000);

  it('prints the dashboard URL; the dashboard lists the relay delivery and sends it again', async () => {
    receiver = await startReceiver();
    const run = runCli(cli.file, relayArgs(receiver.url, '--quiet'));
    try {
      const [, url] = await run.waitFor(/Base URL:\s+(\S+)/);
      const [, dashboard] = await run.waitFor(/Dashboard:\s+(http:\/\/127\.0\.0\.1:\d+\/)\s/);
      expect(new URL(url as string).origin).toBe(new URL(dashboard as string).origin);
      const page = await fetch(dashboard as string);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const response = await fetch(`${url}/v2/ewaybill/doc_demo_0001`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(buildEwayBillModel()),
      });
      expect(response.status).toBe(200);
      const state = async () =>
        (await (await fetch(new URL('/_dashboard/state', dashboard))).json()) as {
          deliveries: { id: number; eventType: string; status: number }[];
          webhookReceiver: string;
        };
      let deliveries = (await state()).deliveries;
      // Bounded only against a hang (about 20 s of polls): a loaded machine may take seconds to relay the delivery.
      for (let turn = 0; turn < 1000 && deliveries.length === 0; turn++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        deliveries = (await state()).deliveries;
      }
      expect(deliveries).toEqual([expect.objectContaining({ eventType: 'document', status: 200 })]);
      const again = await fetch(new URL('/_dashboard/webhooks/resend', dashboard), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: deliveries[0]?.id }),
      });
      expect(await again.json()).toMatchObject({ eventType: 'document', status: 200 });
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1]?.body).toBe(receiver.received[0]?.body);
      const text = JSON.stringify(await state());
      expect(text).not.toContain(KEY);
      noSecret(text);
      run.child.kill('SIGTERM');
      expect(await run.exit()).toBe(0);
    } finally {
      run.child.kill('SIGKILL');
    }
  }, 30_000);

  it('reports a failed delivery even with --quiet, and keeps answering', async () => {
    receiver = await startReceiver();
    const deadUrl = receiver.url;
    await receiver.close();
    receiver = undefined;
    const run = runCli(
      cli.file,
      ['mock-server', '--port', '0', '--quiet', '--api-key', KEY, '--webhook-url', deadUrl],
      {
        WEBHOOK_SECRET: SECRET,
      },
    );
    try {
      const [, url] = await run.waitFor(/Base URL:\s+(\S+)/);
      const response = await fetch(`${url}/v2/ewaybill/doc_demo_0001`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(buildEwayBillModel()),
      });
      expect(response.status).toBe(200);
      // Bounded only against a hang (about 20 s of polls), within the test's 30 s.
      for (let i = 0; i < 400 && !run.stderr().includes('webhook for doc_demo_0001 failed'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(run.stderr()).toMatch(
        /\[mock\] webhook for doc_demo_0001 failed: Could not deliver the webhook to http:\/\/127\.0\.0\.1:\d+/,
      );
      expect(run.stdout()).not.toMatch(/\[mock /);
      noSecret(run.stderr());
      run.child.kill('SIGTERM');
      expect(await run.exit()).toBe(0);
    } finally {
      run.child.kill('SIGKILL');
    }
  }, 30_000);

  it.each([
    [['mock-server', '--api-key', 'plain-key'], /--api-key must be shaped like the service's keys/],
    [['mock-server', '--webhook-url', 'nope'], /--webhook-url must be an absolute http\(s\) URL/],
    [['mock-server', '--webhook-secret', 's'], /--webhook-secret needs --webhook-url/],
    [['mock-server', '--type', 'document'], /'--type' does not apply to mock-server/],
  ])('exits 2 for %j', async (args, message) => {
    const run = runCli(cli.file, args);
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toMatch(message);
  });

  it('exits 2 when --webhook-url has no secret at all', async () => {
    const run = runCli(cli.file, ['mock-server', '--port', '0', '--webhook-url', 'http://127.0.0.1:9/h'], {
      WEBHOOK_SECRET: '',
    });
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toMatch(/--webhook-url needs the webhook secret/);
  });
});

/** `mock-server` on a free port with the test key, relaying signed webhooks to `url`. */
function relayArgs(url: string, ...extra: string[]): string[] {
  return ['mock-server', '--port', '0', ...extra, '--api-key', KEY, '--webhook-url', url, '--webhook-secret', SECRET];
}
