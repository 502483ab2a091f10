// DNS rebinding against the mock's dashboard, in Chromium (playwright-core, /usr/bin/chromium). The browser resolves
// rebind.test to 127.0.0.1 (--host-resolver-rules), as a rebound DNS answer would, so a page of the attacker's origin
// http://rebind.test:<port> reaches the mock with the attacker's name in Host and Origin. Everything is on 127.0.0.1.

import { buildEwayBillModel, type MockServer, startMockServer } from 'invoicing-service-sdk/testing';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingReceiver } from './helpers.js';

const KEY = 'tamarind.mangosteen.jackfruit';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WAIT_MS = 8_000;

/** What a script of the attacker's page got for one request to its own origin (the mock, after rebinding). */
interface Attempt {
  readonly status: number;
  readonly body: string;
}

describe('a DNS-rebinding page in Chromium', () => {
  let mock: MockServer;
  let receiver: Awaited<ReturnType<typeof recordingReceiver>>;
  let browser: Browser;
  let attacker: Page;
  let origin: string;
  let received: string[];

  beforeAll(async () => {
    receiver = await recordingReceiver();
    received = receiver.received;
    const receiverUrl = receiver.url;
    mock = await startMockServer({
      apiKey: KEY,
      rateLimit: false,
      webhook: { url: receiverUrl, secret: 'rebinding-test-secret', timeoutMs: 5_000 },
    });
    // Something worth stealing: a recorded request and a webhook delivery (id 1) to re-send.
    const hashId = mock.service.addDocument('INV-SECRET-CUSTOMER');
    await fetch(`${mock.baseUrl}/v2/ewaybill/${hashId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(buildEwayBillModel()),
    });
    await mock.service.sendDocumentEvent();
    received.length = 0;

    const port = new URL(mock.dashboardUrl).port;
    origin = `http://rebind.test:${port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--host-resolver-rules=MAP rebind.test 127.0.0.1'],
      timeout: 20_000,
    });
    attacker = await browser.newPage();
    attacker.setDefaultTimeout(WAIT_MS);
    // The attacker's page: a document of the origin http://rebind.test:<port>, which the browser now resolves to
    // 127.0.0.1 (the mock's 404 page stands in for the attacker's HTML; its scripts are the evaluate() calls below).
    // Chromium lets a loopback page fetch loopback addresses, as after a real rebinding of the name.
    await attacker.goto(`${origin}/attacker-page`);
    expect(new URL(attacker.url()).host).toBe(`rebind.test:${port}`);
  });

  afterAll(async () => {
    await browser?.close();
    await mock?.close();
    await receiver?.close();
  });

  /** Runs `fetch(path, init)` in the attacker's page and returns what its script could read. */
  function attempt(path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) {
    return attacker.evaluate(
      async ([p, i]) => {
        const controller = new AbortController();
        const response = await fetch(p, { ...i, signal: controller.signal });
        // The event stream never ends: what matters is whether it opened, and its first bytes.
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        const first = await reader.read();
        controller.abort();
        return { status: response.status, body: new TextDecoder().decode(first.value ?? new Uint8Array()) };
      },
      [path, init] as const,
    ) as Promise<Attempt>;
  }

  const postJson = (body: unknown) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

  it('gets 403 for the page, the state and the event stream, and reads nothing recorded', async () => {
    const attempts = [await attempt('/'), await attempt('/_dashboard/state'), await attempt('/_dashboard/events')];
    expect(attempts.map((a) => a.status)).toEqual([403, 403, 403]);
    for (const { body } of attempts) {
      expect(body).not.toContain('INV-SECRET-CUSTOMER');
      expect(JSON.parse(body).error).toContain('--allowed-host');
    }
  });

  it('gets 403 for the fault switches and the webhook re-send, which change nothing', async () => {
    const attempts = [
      await attempt('/_dashboard/faults', postJson({ answer: 'serverError', portalDisconnected: true, slowMs: 0 })),
      await attempt('/_dashboard/webhooks/resend', postJson({ id: 1 })),
      await attempt('/_dashboard/webhooks/test', postJson({ type: 'document' })),
    ];
    expect(attempts.map((a) => a.status)).toEqual([403, 403, 403]);
    const state = mock.service;
    expect(state.pendingFaults).toBe(0);
    const own = await (await fetch(new URL('/_dashboard/state', mock.dashboardUrl))).json();
    expect(own.faults).toMatchObject({ answer: 'normal', portalDisconnected: false });
    expect(own.deliveries).toHaveLength(1); // only the delivery made by the test, none re-sent
    expect(received).toEqual([]);
  });

  it('still gets answers from the API routes, which answer any Host', async () => {
    const hashId = mock.service.addDocument();
    const result = await attempt(`/api/partner/v2/ewaybill/${hashId}`, {
      ...postJson(buildEwayBillModel()),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    });
    expect(result.status).toBe(200);
    expect(mock.service.getDocument(hashId)?.ewayBill?.number).toMatch(/^\d{12}$/);
  });

  it('leaves the dashboard working at the name the mock printed', async () => {
    const own = await browser.newPage();
    try {
      await own.goto(mock.dashboardUrl);
      await own.getByText('Live: updates as requests arrive.').waitFor({ timeout: WAIT_MS });
      await own.locator('#request-rows tr.request', { hasText: 'INV-SECRET-CUSTOMER' }).waitFor({ timeout: WAIT_MS });
    } finally {
      await own.close();
    }
  });
});
