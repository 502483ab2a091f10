// What the dashboard holds stays bounded: its rows cut big bodies, and an event-stream client that stops reading
// (a raw socket on 127.0.0.1 that never reads) is coalesced, then closed, instead of buffering every event.

import { createServer, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { buildEwayBillModel, startMockServer } from 'invoicing-service-sdk/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDashboard, DASHBOARD_MAX_TEXT_CHARS } from '../../src/testing/dashboard.js';
import { dashboardHosts } from '../../src/testing/dashboard-host.js';
import { DASHBOARD_STREAM_KEEP_ALIVE_MS, DASHBOARD_STREAM_MAX_BUFFER } from '../../src/testing/dashboard-stream.js';
import { createEmulator, type EmulatorCore } from '../../src/testing/emulator.js';

const KEY = 'tamarind.mangosteen.jackfruit';
/** A 0.5 MB create-e-way-bill body (its long unknown field gets a 400: it is recorded all the same). */
const BIG = JSON.stringify({ ...buildEwayBillModel(), note: 'x'.repeat(500_000) });

function postBig(core: EmulatorCore, body = BIG): Promise<Response> {
  return core.fetch(`${core.baseUrl}/v2/ewaybill/doc_memory`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body,
  });
}

describe('the dashboard rows', () => {
  it('keep the first 16,384 characters of a big request and say so, so that the state stays bounded', async () => {
    const mock = await startMockServer({ apiKey: KEY, rateLimit: false });
    try {
      const response = await fetch(`${mock.baseUrl}/v2/ewaybill/${mock.service.addDocument()}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: BIG,
      });
      expect(response.status).toBe(400);
      // 510 more (over the 500 rows shown), through the service's own fetch: the dashboard sees them all the same.
      for (let i = 0; i < 510; i++) await postBig(mock.service as unknown as EmulatorCore);
      const state = await (await fetch(new URL('/_dashboard/state', mock.dashboardUrl))).text();
      const rows = JSON.parse(state).requests as { request: string; answer: string }[];
      expect(rows).toHaveLength(500);
      for (const row of rows) {
        expect(row.request.length).toBeLessThan(DASHBOARD_MAX_TEXT_CHARS + 200);
        expect(row.request).toMatch(/\(cut here: the dashboard keeps the first 16384 characters .* 500\d{3} bytes\)$/);
      }
      // Before the cut, this state was 500 rows of 0.5 MB: 250 MB.
      expect(state.length).toBeLessThan(500 * 2 * (DASHBOARD_MAX_TEXT_CHARS + 1024));
    } finally {
      await mock.close();
    }
  }, 60_000);
});

describe('an event-stream client that stops reading', () => {
  const opened: { server: Server; socket: Socket; close(): void }[] = [];

  afterEach(async () => {
    vi.useRealTimers();
    for (const item of opened.splice(0)) {
      item.socket.destroy();
      item.close();
      await new Promise<void>((resolve) => item.server.close(() => resolve()));
    }
  });

  /**
   * A dashboard on its own loopback server (so the test sees the stream's ServerResponse) and a raw socket that
   * asks for the event stream and never reads it.
   */
  async function stalledClient() {
    const core = createEmulator({ apiKey: KEY, rateLimit: false });
    core.addDocument('doc_memory');
    const dashboard = createDashboard(core, {
      baseUrl: 'http://127.0.0.1/api/partner',
      hosts: dashboardHosts('127.0.0.1'),
    });
    let stream: ServerResponse | undefined;
    const server = createServer((req, res) => {
      if (req.url === '/_dashboard/events') stream = res;
      if (!dashboard.handle(req, res)) res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const socket = connect(port, '127.0.0.1');
    opened.push({ server, socket, close: () => dashboard.close() });
    // No 'data' listener: once Node's small read buffer is full, the socket takes nothing more from the kernel.
    socket.write(`GET /_dashboard/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    for (let i = 0; i < 500 && stream === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const res = stream as ServerResponse;
    expect(res).toBeDefined();
    // Events until the socket's kernel buffers are full and the dashboard has queued more than its bound.
    let sent = 0;
    for (; sent < 5_000 && res.writableLength <= DASHBOARD_STREAM_MAX_BUFFER; sent++) await postBig(core);
    expect(res.writableLength).toBeGreaterThan(DASHBOARD_STREAM_MAX_BUFFER);
    return { core, res, socket, sent };
  }

  it('queues nothing more once over the bound, and catches up with one snapshot when it reads again', async () => {
    const { core, res, socket, sent } = await stalledClient();
    const stalled = res.writableLength;
    expect(stalled).toBeLessThan(DASHBOARD_STREAM_MAX_BUFFER + 256 * 1024);
    for (let i = 0; i < 200; i++) await postBig(core); // each event is about 17 kB: 3.4 MB more before the bound
    expect(res.writableLength).toBeLessThanOrEqual(stalled);

    // Reading again: what was queued, then one snapshot holding the newest request.
    const last = sent + 200;
    let text = '';
    socket.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no catch-up snapshot with seq ${last} within 20 s`)), 20_000);
      socket.on('data', (chunk: string) => {
        text += chunk;
        // The stream is chunked: each message is one chunk, so the newest snapshot is whole once its `\n\n` came.
        const at = text.lastIndexOf('event: snapshot\n');
        const caughtUp = at > text.indexOf('event: snapshot\n') && text.indexOf('\n\n', at) !== -1;
        if (caughtUp && text.slice(at).includes(`"seq":${last},`)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const requestEvents = text.split('event: request\n').length - 1;
    expect(requestEvents).toBeLessThan(last); // the missed events came as one snapshot, not one by one
  }, 120_000);

  it('is closed when it stays behind for two keep-alive periods', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { res } = await stalledClient();
    const closed = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the stalled stream was not closed within 10 s')), 10_000);
      res.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    vi.advanceTimersByTime(DASHBOARD_STREAM_KEEP_ALIVE_MS);
    expect(res.destroyed).toBe(false); // one period behind: it may still be a slow reader
    vi.advanceTimersByTime(DASHBOARD_STREAM_KEEP_ALIVE_MS);
    await closed;
    expect(res.destroyed).toBe(true);
    expect(res.writableLength).toBe(0);
  }, 60_000);
});
