// The dashboard answers only the Host names of this machine (DNS rebinding): raw node:http requests that name the
// host themselves, against a real mock server on 127.0.0.1.

import { request } from 'node:http';
import { connect } from 'node:net';
import { buildEwayBillModel, type MockServer, startMockServer } from 'invoicing-service-sdk/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const KEY = 'tamarind.mangosteen.jackfruit';

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** Sends one request to 127.0.0.1:`port` with the given `Host` header, and reads the start of the answer. */
function send(
  port: number,
  host: string,
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { host, ...options.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        // An event stream never ends: its first message is enough.
        if (res.headers['content-type']?.startsWith('text/event-stream') && body.includes('\n\n')) res.destroy();
      });
      res.on('close', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer to ${method} ${path} within 10 s`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

const json = (origin: string) => ({ 'content-type': 'application/json', origin });

describe('the dashboard only answers the names of this machine', () => {
  let mock: MockServer;
  let port: number;
  const servers: MockServer[] = [];

  beforeAll(async () => {
    mock = await startMockServer({
      apiKey: KEY,
      rateLimit: false,
      webhook: { url: 'http://127.0.0.1:9/hooks', secret: 'host-test-secret', timeoutMs: 1_000 },
    });
    port = Number(new URL(mock.dashboardUrl).port);
  });

  afterAll(async () => {
    await mock?.close();
  });

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('answers 403 to the page, the state, the event stream and every action under a rebound name', async () => {
    const attacker = `rebind.test:${port}`;
    const origin = `http://${attacker}`;
    const answers = [
      await send(port, attacker, 'GET', '/'),
      await send(port, attacker, 'GET', '/_dashboard/state'),
      await send(port, attacker, 'GET', '/_dashboard/events'),
      await send(port, attacker, 'POST', '/_dashboard/faults', {
        body: JSON.stringify({ answer: 'serverError' }),
        headers: json(origin),
      }),
      await send(port, attacker, 'POST', '/_dashboard/webhooks/resend', {
        body: JSON.stringify({ id: 1 }),
        headers: json(origin),
      }),
      await send(port, attacker, 'POST', '/_dashboard/webhooks/test', {
        body: JSON.stringify({ type: 'document' }),
        headers: json(origin),
      }),
      await send(port, attacker, 'GET', '/_dashboard/nothing-here'),
    ];
    expect(answers.map((a) => a.status)).toEqual([403, 403, 403, 403, 403, 403, 403]);
    for (const answer of answers) {
      expect(JSON.parse(answer.body).error).toMatch(/answers only to localhost.*"rebind\.test:\d+".*--allowed-host/);
    }
    // Nothing was switched: the state, read under the machine's own name, still answers normally.
    const state = await send(port, `127.0.0.1:${port}`, 'GET', '/_dashboard/state');
    expect(state.status).toBe(200);
    expect(JSON.parse(state.body).faults).toMatchObject({ answer: 'normal', slowMs: 0 });
    expect(JSON.parse(state.body).deliveries).toEqual([]);
  });

  it('leaves the API routes open to any Host', async () => {
    const hashId = mock.service.addDocument();
    const answer = await send(port, `rebind.test:${port}`, 'POST', `/api/partner/v2/ewaybill/${hashId}`, {
      body: JSON.stringify(buildEwayBillModel()),
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ success: true });
    expect(mock.service.getDocument(hashId)?.ewayBill?.number).toMatch(/^\d{12}$/);
  });

  it.each([
    ['localhost', 'localhost:PORT'],
    ['LocalHost. without a port', 'LocalHost.'],
    ['127.0.0.1', '127.0.0.1:PORT'],
    ['another address of 127.0.0.0/8', '127.12.0.9:PORT'],
    ['::1', '[::1]:PORT'],
  ])('answers a loopback name: %s', async (_, host) => {
    const answer = await send(port, host.replace('PORT', String(port)), 'GET', '/_dashboard/state');
    expect(answer.status).toBe(200);
  });

  it.each([
    ['a name that ends in localhost', 'evil-localhost:PORT'],
    ['a name that starts with 127.', '127.0.0.1.rebind.test:PORT'],
    ['the wildcard address the mock does not listen on', '0.0.0.0:PORT'],
  ])('refuses %s', async (_, host) => {
    const answer = await send(port, host.replace('PORT', String(port)), 'GET', '/_dashboard/state');
    expect(answer.status).toBe(403);
  });

  it('refuses a request with no Host at all (HTTP/1.0)', async () => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    await new Promise<void>((resolve, reject) => {
      socket.on('close', () => resolve());
      socket.on('error', reject);
      socket.write('GET /_dashboard/state HTTP/1.0\r\n\r\n');
    });
    expect(text).toMatch(/^HTTP\/1\.1 403 /);
  });

  it('answers the names given with allowedHosts and the address it listens on, and still refuses others', async () => {
    const named = await startMockServer({ rateLimit: false, allowedHosts: ['Mock', '192.168.7.20', '[fd00::7]'] });
    servers.push(named);
    const namedPort = Number(new URL(named.dashboardUrl).port);
    const statuses = await Promise.all(
      [`mock:${namedPort}`, `192.168.7.20:${namedPort}`, `[fd00::7]:${namedPort}`, `rebind.test:${namedPort}`].map(
        async (host) => (await send(namedPort, host, 'GET', '/_dashboard/state')).status,
      ),
    );
    expect(statuses).toEqual([200, 200, 200, 403]);
    const refused = await send(namedPort, 'rebind.test', 'GET', '/');
    expect(JSON.parse(refused.body).error).toContain('the address it listens on, mock, 192.168.7.20, fd00::7;');

    const wildcard = await startMockServer({ rateLimit: false, host: '0.0.0.0' });
    servers.push(wildcard);
    const wildcardPort = Number(new URL(wildcard.dashboardUrl).port);
    expect(new URL(wildcard.dashboardUrl).host).toBe(`0.0.0.0:${wildcardPort}`);
    expect((await send(wildcardPort, `0.0.0.0:${wildcardPort}`, 'GET', '/_dashboard/state')).status).toBe(200);
    expect((await send(wildcardPort, `rebind.test:${wildcardPort}`, 'GET', '/_dashboard/state')).status).toBe(403);
  });

  it.each([[['http://mock']], [['mock:4010']], [['a b']], ['mock']])(
    'refuses allowedHosts %j with a TypeError that names the entry',
    async (allowedHosts) => {
      await expect(startMockServer({ allowedHosts: allowedHosts as string[] })).rejects.toThrow(
        /^allowedHosts(\[0\])? must be/,
      );
    },
  );
});
