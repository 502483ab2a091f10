import { request as httpRequest } from 'node:http';
import { ServiceClient } from 'invoicing-service-sdk';
import { buildEwayBillModel, createMockService, startMockServer } from 'invoicing-service-sdk/testing';
import { describe, expect, it } from 'vitest';

describe('startMockServer', () => {
  it('listens on 127.0.0.1 on a free port and gives the base URL with the partner prefix', async () => {
    const mock = await startMockServer();
    try {
      expect(mock.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/api\/partner$/);
      expect(mock.apiKey).toBe(mock.service.apiKey);
      const response = await fetch(`${mock.baseUrl}/v2/ewaybill/${mock.service.addDocument()}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${mock.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(buildEwayBillModel()),
      });
      expect(response.status).toBe(200);
    } finally {
      await mock.close();
    }
  });

  it('serves an existing service, sharing its state with its msw handlers', async () => {
    const service = createMockService({ baseUrl: 'https://partner.mock.test/base' });
    const mock = await startMockServer({ service });
    try {
      expect(mock.service).toBe(service);
      expect(mock.baseUrl).toMatch(/\/base$/);
      const client = new ServiceClient({ apiKey: service.addApiKey(), baseUrl: mock.baseUrl });
      const hashId = service.addDocument();
      await client.createEwayBill(hashId, buildEwayBillModel());
      expect(service.getDocument(hashId)?.ewayBill).toBeDefined();
    } finally {
      await mock.close();
    }
  });

  it('closes without hanging while a scripted delay is in progress, and close() can be called twice', async () => {
    const mock = await startMockServer();
    mock.service.failNext({ delayMs: 60_000 });
    const pending = fetch(`${mock.baseUrl}/v2/ewaybill/x`, { method: 'POST' }).then(
      () => 'answered',
      () => 'failed',
    );
    for (let turn = 0; turn < 500 && mock.service.requests.length === 0; turn++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(mock.service.requests).toHaveLength(1);
    await Promise.all([mock.close(), mock.close()]);
    expect(await pending).toBe('failed');
  });

  it('destroys the socket for a dropped connection', async () => {
    const mock = await startMockServer();
    try {
      mock.service.failNext({ drop: true });
      await expect(fetch(`${mock.baseUrl}/v2/ewaybill/x`, { method: 'POST' })).rejects.toThrow(TypeError);
    } finally {
      await mock.close();
    }
  });

  it('refuses a body larger than 1 MiB with 413', async () => {
    const mock = await startMockServer();
    try {
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const req = httpRequest(`${mock.baseUrl}/v2/ewaybill/x`, { method: 'POST' }, (res) => {
          res.resume();
          resolve(res.statusCode);
        });
        req.on('error', reject);
        req.end(Buffer.alloc(1024 * 1024 + 10, 0x20));
      });
      expect(status).toBe(413);
    } finally {
      await mock.close();
    }
  });

  it('rejects when the port is taken, and on bad options', async () => {
    const first = await startMockServer();
    try {
      const port = Number(new URL(first.baseUrl).port);
      await expect(startMockServer({ port })).rejects.toThrow(/EADDRINUSE/);
      await expect(startMockServer({ port: 70_000 })).rejects.toThrow(TypeError);
      await expect(startMockServer({ service: {} as never })).rejects.toThrow(/createMockService/);
    } finally {
      await first.close();
    }
  });
});

describe('service.fetch', () => {
  it('lets ServiceClient talk to the emulator with no network and no msw', async () => {
    const service = createMockService();
    const client = new ServiceClient({ apiKey: service.addApiKey(), baseUrl: service.baseUrl, fetch: service.fetch });
    const hashId = service.addDocument();
    await expect(client.createEwayBill(hashId, buildEwayBillModel())).resolves.toMatchObject({ success: true });
    expect(service.requests).toHaveLength(1);
  });
});
