// The mock's dashboard in a real browser: Chromium from Debian's packages (`apt-get install chromium`; .ci/run
// installs it when missing) driven by playwright-core. Everything is on 127.0.0.1 and started here: no network.
// Set DASHBOARD_SCREENSHOT=docs/images/dashboard.png to refresh the screenshot in docs/testing.md.

import { createHash } from 'node:crypto';
import { createProcessRateLimiter, RateLimitError, ServiceClient } from 'invoicing-service-sdk';
import { buildEwayBillModel, type MockServer, startMockServer } from 'invoicing-service-sdk/testing';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEvents } from './event-stream.js';
import { recordingReceiver } from './helpers.js';

// Shaped like the service's keys (three dot-separated parts) and made of words, so a leak is easy to find.
const KEY = 'tamarind.mangosteen.jackfruit';
const KEY_HASH = createHash('sha256').update(KEY).digest('hex').slice(0, 12);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// How long a wait for the page or the mock may take before the test calls it a hang. Only a guard: on a loaded machine
// (the full suite, or `npm run test:stress`) Chromium can take seconds to render; nothing here is a bound on speed.
const WAIT_MS = 60_000;

/** Polls `check` until it is true, for at most `timeoutMs`. */
async function until(check: () => boolean, what: string, timeoutMs = WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the mock dashboard in Chromium', { timeout: 2 * WAIT_MS }, () => {
  let mock: MockServer;
  let receiver: Awaited<ReturnType<typeof recordingReceiver>>;
  let receiverUrl: string;
  let browser: Browser;
  let page: Page;
  let events: Awaited<ReturnType<typeof openEvents>>;
  let received: string[];

  beforeAll(async () => {
    receiver = await recordingReceiver();
    received = receiver.received;
    receiverUrl = receiver.url;
    mock = await startMockServer({
      port: 0,
      host: '127.0.0.1',
      apiKey: KEY,
      webhook: { url: receiverUrl, secret: 'browser-test-secret', timeoutMs: WAIT_MS },
    });
    events = await openEvents(new URL('/_dashboard/events', mock.dashboardUrl).href);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], timeout: 20_000 });
    page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    page.setDefaultTimeout(WAIT_MS);
    await page.goto(mock.dashboardUrl);
    await page.getByText('Live: updates as requests arrive.').waitFor();
  }, 2 * WAIT_MS);

  afterAll(async () => {
    events?.close();
    await browser?.close();
    await mock?.close();
    await receiver?.close();
  });

  it('shows the calls of a real ServiceClient as rows and on the timeline, without a reload', async () => {
    // The mock enforces the 1 s limit on its own arrival stamps, taken on this process's event loop: a first stamp that
    // came late would make a correctly spaced second request a 429. The client spaces its two calls 3 s apart
    // (margin 2 s), so only a stall of seconds between the two stamps could do that.
    const client = new ServiceClient({
      apiKey: KEY,
      baseUrl: mock.baseUrl,
      rateLimiter: createProcessRateLimiter({ margin: 2000 }),
    });
    const first = mock.service.addDocument('INV-BROWSER-1');
    const second = mock.service.addDocument('INV-BROWSER-2');
    await client.createEwayBill(first, buildEwayBillModel());
    await client.createEwayBill(second, buildEwayBillModel()); // the client's throttle spaces it 1 s after the first
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => navigations.push(frame.url()));

    await page.waitForFunction(() => document.querySelectorAll('#request-rows tr.request').length === 2);
    const newest = page.locator('#request-rows tr.request').first();
    const cells = await newest.locator('td').allTextContents();
    expect(cells.slice(1, 6)).toEqual([
      `${KEY_HASH} (key_1)`,
      'POST',
      '/api/partner/v2/ewaybill/INV-BROWSER-2',
      'INV-BROWSER-2',
      '200',
    ]);
    const arrivals = page.locator('#timelines li.arrival');
    expect(await arrivals.count()).toBe(2);
    expect(await arrivals.evaluateAll((items) => items.map((item) => item.getAttribute('data-status')))).toEqual([
      '200',
      '200',
    ]);
    // Each mark sits where the mock recorded its arrival, 120 px per second from the first: the second was sent after
    // the first was answered, so it is to the right.
    const lefts = await arrivals.evaluateAll((items) => items.map((item) => Number.parseFloat(item.style.left)));
    const received = mock.service.requests
      .filter((request) => request.docHashId === first || request.docHashId === second)
      .map((request) => request.receivedAt);
    expect(lefts[0]).toBe(0);
    expect(lefts[1]).toBeCloseTo((((received[1] ?? 0) - (received[0] ?? 0)) / 1000) * 120, 1);
    expect(lefts[1]).toBeGreaterThan(lefts[0] as number);
    // The documents table shows the bill numbers.
    const bills = page.locator('#document-rows tr', { hasText: 'INV-BROWSER-1' });
    expect(await bills.locator('td').nth(2).textContent()).toMatch(/^\d{12}$/);
    expect(navigations).toEqual([]); // nothing reloaded the page
  });

  it('labels a 429 with the text "429" (and red), in the table and on the timeline', async () => {
    // Two clients of one key with their throttle off: they arrive together, the mock refuses one.
    const unthrottled = { apiKey: KEY, baseUrl: mock.baseUrl, rateLimiter: { acquire: async () => {} }, maxRetries: 0 };
    const results = await Promise.allSettled(
      [mock.service.addDocument(), mock.service.addDocument()].map((id) =>
        new ServiceClient(unthrottled).createEwayBill(id, buildEwayBillModel()),
      ),
    );
    const refused = results.filter((r) => r.status === 'rejected' && r.reason instanceof RateLimitError);
    expect(refused.length).toBeGreaterThanOrEqual(1);

    const mark = page.locator('#timelines li.arrival.refused').first();
    await mark.waitFor();
    expect(await mark.locator('.label').textContent()).toBe('429');
    expect(await mark.textContent()).toContain('refused by the rate limit');
    expect(await mark.locator('.label').evaluate((label) => getComputedStyle(label).color)).toBe('rgb(176, 0, 32)');
    const row = page.locator('#request-rows tr.request', { hasText: 'RATE_LIMITED' }).first();
    expect(await row.locator('td').nth(5).textContent()).toBe('429');
  });

  it('expands a row from the keyboard to show the request and the answer, the key redacted', async () => {
    const button = page.locator('#request-rows tr.request').last().getByRole('button');
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    await button.focus();
    await page.keyboard.press('Enter');
    expect(await button.getAttribute('aria-expanded')).toBe('true');
    const detail = page.locator(`#${await button.getAttribute('aria-controls')}`);
    await detail.waitFor({ state: 'visible' });
    const text = (await detail.textContent()) ?? '';
    expect(text).toContain('authorization: Bearer [redacted]');
    expect(text).toContain('HTTP 200');
    expect(text).toContain('"success": true'); // the answer's body, as the mock sent it
    await page.keyboard.press('Enter');
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    await detail.waitFor({ state: 'hidden' });
  });

  it('"Send again" delivers the same webhook to a loopback receiver', async () => {
    await page.getByLabel('Event type').selectOption('inventory');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await until(() => received.length === 1, 'the test event');
    await page.locator('#delivery-rows tr.delivery').first().waitFor();
    expect(JSON.parse(received[0] as string)).toMatchObject({ event_type: 'inventory' });

    await page.locator('#delivery-rows tr.delivery').first().getByRole('button', { name: /again/ }).click();
    await until(() => received.length === 2, 'the webhook sent again');
    expect(received[1]).toBe(received[0]);
    await page.waitForFunction(() => document.querySelectorAll('#delivery-rows tr.delivery').length === 2);
    const cells = await page.locator('#delivery-rows tr.delivery').first().locator('td').allTextContents();
    expect(cells.slice(1, 5)).toEqual([
      'inventory',
      JSON.parse(received[0] as string).event_id,
      receiverUrl,
      'HTTP 200',
    ]);
  });

  it('fault switches change what the next calls get until they are switched off', async () => {
    // Each call with a key of its own, so the rate limit's window plays no part.
    const post = () =>
      fetch(`${mock.baseUrl}/v2/ewaybill/${mock.service.addDocument()}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${mock.service.addApiKey()}`, 'content-type': 'application/json' },
        body: JSON.stringify(buildEwayBillModel()),
      });
    const updated = () =>
      page.waitForFunction(() => document.getElementById('fault-status')?.textContent === 'Faults updated.');
    const clearStatus = () =>
      page.evaluate(() => (document.getElementById('fault-status') as HTMLElement).replaceChildren());

    await page.getByLabel('500 Internal server error').check();
    await updated();
    expect((await post()).status).toBe(500);

    await clearStatus();
    await page.getByLabel('Normal').check();
    await updated();
    await clearStatus();
    await page.getByLabel(/Portal disconnected/).check();
    await updated();
    const disconnected = await post();
    expect(((await disconnected.json()) as { error_code: string }).error_code).toBe('PORTAL_ERROR_111');
    const row = page.locator('#request-rows tr.request', { hasText: 'PORTAL_ERROR_111' }).first();
    expect(await row.locator('td').nth(7).textContent()).toMatch(/^111 — \S/); // the code and its meaning

    await clearStatus();
    await page.getByLabel(/Portal disconnected/).uncheck();
    await updated();
    expect((await post()).status).toBe(200);
  });

  it('never shows the API key, in the page or in its event stream', async () => {
    await page.waitForFunction(() => document.querySelectorAll('#request-rows tr.request').length >= 7);
    if (process.env.DASHBOARD_SCREENSHOT)
      await page.screenshot({ path: process.env.DASHBOARD_SCREENSHOT, fullPage: true });
    await events.waitFor(/event: webhook\n(?:.*\n)*?event: webhook\n/);
    expect(events.text).toContain(KEY_HASH);
    expect(events.text).not.toContain(KEY);
    expect(await page.content()).toContain(KEY_HASH);
    expect(await page.content()).not.toContain(KEY);
    // Nor any of its parts: the page shows hashes and ids only.
    for (const part of KEY.split('.')) expect(await page.content()).not.toContain(part);
  });
});
