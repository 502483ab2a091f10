import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type EwayBillModel, PortalError, ServiceClient } from 'invoicing-service-sdk';
import { buildEwayBillModel, createMockService } from 'invoicing-service-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { post } from './helpers.js';

const shipTo = (ship_to_gstin: string) =>
  buildEwayBillModel({ transaction_type: 'Bill To - Ship To', ship_to_gstin } as Partial<EwayBillModel>);

describe('the emulator applies the split between schema rules and portal rules', () => {
  it('accepts in its validation what the spec allows, and answers PORTAL_ERROR_{code} for a portal rule', async () => {
    const service = createMockService({ rateLimit: false });
    const hashId = service.addDocument();
    // A wrong check character: the spec allows it (15 upper-case alphanumerics), the portal refuses it (609).
    const response = await post(service, hashId, shipTo('27AAPFU0939F1ZX'));
    expect(response.status).toBe(400);
    const json = await response.json();
    expect(json).toMatchObject({ success: false, error_code: 'PORTAL_ERROR_609' });
    expect(json.message).toContain('invalid ship to from gstin');
    expect(json.errors.ship_to_gstin[0]).toContain("should be 'V'");
    expect(service.getDocument(hashId)?.ewayBill).toBeUndefined();
  });

  it("generates for NIC's sandbox GSTINs, as the sandbox the service targets by default does", async () => {
    const service = createMockService({ rateLimit: false });
    const hashId = service.addDocument();
    expect((await post(service, hashId, shipTo('36AMBPG7773M002'))).status).toBe(200);
    expect(service.getDocument(hashId)?.ewayBill?.model).toMatchObject({ ship_to_gstin: '36AMBPG7773M002' });
  });

  it.each([
    [{ supply_type: 'Outward', sub_supply_type: 'Sales Returns' }, 'PORTAL_ERROR_202'],
    [
      { vehicle_type: 'Over Dimensional Cargo', transport_mode: 'Air', transporter_doc_number: 'AWB-1' },
      'PORTAL_ERROR_634',
    ],
    [{ vehicle_number: undefined }, 'PORTAL_ERROR_619'],
    [{ transaction_type: 'Regular', ship_to_gstin: '19AAPFU0939F1ZS' }, 'PORTAL_ERROR_616'],
    [{ dispatch_from: { state: 'KARNATAKA' } }, 'PORTAL_ERROR_437'],
    [{ dispatch_to: { state: 'BIHAR' } }, 'PORTAL_ERROR_436'],
  ])('answers a model that breaks a portal rule (%j) with %s, not VALIDATION_ERROR', async (overrides, code) => {
    const service = createMockService({ rateLimit: false });
    const hashId = service.addDocument();
    const response = await post(service, hashId, buildEwayBillModel(overrides as never));
    expect(response.status).toBe(400);
    expect((await response.json()).error_code).toBe(code);
  });

  it('still answers VALIDATION_ERROR for what the spec forbids', async () => {
    const service = createMockService({ rateLimit: false });
    const hashId = service.addDocument();
    const response = await post(service, hashId, shipTo('27aapfu0939f1zv'));
    expect(response.status).toBe(400);
    const json = await response.json();
    expect(json.error_code).toBe('VALIDATION_ERROR');
    expect(json.errors.ship_to_gstin[0]).toContain("write it as '27AAPFU0939F1ZV'");
  });

  describe('through the client and a real socket', () => {
    let server: Server | undefined;
    afterEach(async () => {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server = undefined;
    });

    it('warns in the client and then gets the PortalError production would give', async () => {
      const service = createMockService({ rateLimit: false });
      const hashId = service.addDocument();
      // A node:http server in front of the emulator's fetch handler.
      server = createServer(async (request, response) => {
        const chunks: Buffer[] = [];
        for await (const chunk of request) chunks.push(chunk as Buffer);
        const answer = await service.handle(
          new Request(`${service.baseUrl}${request.url?.replace(/^\/api/, '')}`, {
            method: request.method ?? 'POST',
            headers: request.headers as Record<string, string>,
            body: Buffer.concat(chunks),
          }),
        );
        response.writeHead(answer.status, Object.fromEntries(answer.headers));
        response.end(await answer.text());
      });
      await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const warnings: string[] = [];
      const client = new ServiceClient({
        apiKey: service.apiKey,
        baseUrl: `http://127.0.0.1:${port}/api`,
        fetch: globalThis.fetch,
        onWarning: (finding) => void warnings.push(finding.rule),
      });
      const model = buildEwayBillModel({ supply_type: 'Inward', sub_supply_type: 'Line Sales' });
      const error = await client.createEwayBill(hashId, model).catch((e: unknown) => e);
      expect(warnings).toContain('supply-sub-supply');
      expect(error).toBeInstanceOf(PortalError);
      expect(error).toMatchObject({ portalCode: 202, errorCode: 'PORTAL_ERROR_202' });
    });
  });
});
