import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type EwayBillModel, ServiceClient, ValidationError } from 'invoicing-service-sdk';
import { gstinCheckCharacter, type PreflightFinding } from 'invoicing-service-sdk/gst';
import { EwayBillModelSchema } from 'invoicing-service-sdk/model';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { preflightEwayBill } from '../../src/gst/index.js';
import { checkRegistration } from '../../src/gst/registration.js';
import { freshKey, validModel } from '../helpers/model.js';
import { PUBLISHED_GSTINS } from './fixtures/published-gstins.js';

const billToShipTo = (ship_to_gstin: string) =>
  validModel({ transaction_type: 'Bill To - Ship To', ship_to_gstin } as Partial<EwayBillModel>);
const shipToFindings = (value: string) =>
  preflightEwayBill(billToShipTo(value)).filter((finding) => finding.rule === 'ship-to-gstin');

describe('ship_to_gstin in the schema: what the spec says, nothing more', () => {
  it.each(PUBLISHED_GSTINS.map((entry) => [entry.gstin, entry.kind, entry.source] as const))(
    'accepts the published %s (%s; %s)',
    (gstin) => {
      expect(EwayBillModelSchema.safeParse(billToShipTo(gstin)).success).toBe(true);
    },
  );

  it('holds published GSTINs of every kind, including the ones issue 12 names', () => {
    const kinds = new Set(PUBLISHED_GSTINS.map((entry) => entry.kind));
    for (const kind of ['regular', 'sandbox', 'un-body', 'tds', 'tcs', 'oidar', 'non-resident']) {
      expect(kinds.has(kind as never), kind).toBe(true);
    }
    const named = ['29AABCT1332L000', '36AABCT1332L011', '36AMBPG7773M002', '19AAACI1681G1DV', '9917SGP29001OST'];
    expect(PUBLISHED_GSTINS.map((entry) => entry.gstin)).toEqual(expect.arrayContaining(named));
  });

  it("accepts 'URP' and any 15-character upper-case alphanumeric identifier, check character or not", () => {
    for (const value of ['URP', '27AAPFU0939F1ZX', '27000000000000X', 'ZZZZZZZZZZZZZZZ']) {
      expect(EwayBillModelSchema.safeParse(billToShipTo(value)).success, value).toBe(true);
    }
  });

  it.each([
    ['', /not an empty string/],
    ['urp', /write 'URP' in upper case/],
    [' URP', /write 'URP' in upper case/],
    ['27aapfu0939f1zv', /write it as '27AAPFU0939F1ZV'/],
    ['27AAPFU0939F1ZV ', /write it as '27AAPFU0939F1ZV'/],
    ['27AAPFU0939F1Z', /has 14 characters/],
    ['27AAPFU0939F1Z-V', /neither digits nor letters/],
  ])('refuses %j, which the spec does not allow, saying how to fix it', (value, reason) => {
    const parsed = EwayBillModelSchema.safeParse(billToShipTo(value));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['ship_to_gstin']);
    expect(parsed.error?.issues[0]?.message).toMatch(reason);
  });

  it('is still required for Bill To - Ship To and Combination of 2 and 3', () => {
    const missing = EwayBillModelSchema.safeParse(
      validModel({ transaction_type: 'Combination of 2 and 3' } as Partial<EwayBillModel>),
    );
    expect(missing.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['ship_to_gstin', expect.stringContaining("Required when transaction_type is 'Combination of 2 and 3'")],
    ]);
  });
});

describe('ship_to_gstin in preflight (rule ship-to-gstin, portal 609): the portal rules', () => {
  it('finds nothing in a published registration of any kind with a right check character', () => {
    for (const { gstin, kind } of PUBLISHED_GSTINS) {
      if (kind === 'sandbox') continue;
      expect(checkRegistration(gstin), gstin).toEqual({ valid: true, kind });
      expect(shipToFindings(gstin), gstin).toEqual([]);
    }
    expect(shipToFindings('URP')).toEqual([]);
  });

  it("reports NIC's sandbox GSTINs as such, with portal code 609", () => {
    for (const { gstin } of PUBLISHED_GSTINS.filter((entry) => entry.kind === 'sandbox')) {
      const [finding, ...rest] = shipToFindings(gstin);
      expect(rest).toEqual([]);
      expect(finding).toMatchObject({ rule: 'ship-to-gstin', field: 'ship_to_gstin', portalCodes: [609] });
      expect(finding?.message).toContain("one of NIC's sandbox test GSTINs");
      expect(finding?.message).toContain('the production portal refuses it');
    }
  });

  it('reports a wrong check character, a state code that does not exist, and no registration layout', () => {
    expect(shipToFindings('27AAPFU0939F1ZX')[0]?.message).toMatch(/should be 'V', not 'X'/);
    const badState = '4217UNO00157UN';
    expect(shipToFindings(`${badState}${gstinCheckCharacter(badState)}`)[0]?.message).toMatch(/not a GST state code/);
    for (const first14 of ['27000000000000', '27AAPFU0939F1Y']) {
      const value = `${first14}${gstinCheckCharacter(first14)}`;
      expect(shipToFindings(value)[0]?.message, value).toMatch(/no other registration's layout/);
    }
  });

  it('refuses in strict mode, before anything is sent', async () => {
    const fetch = vi.fn<typeof globalThis.fetch>();
    const client = new ServiceClient({
      apiKey: freshKey('gst'),
      baseUrl: 'https://service.test/api',
      fetch,
      preflight: 'strict',
    });
    const error = await client.createEwayBill('doc1', billToShipTo('27AAPFU0939F1ZX')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((issue) => issue.field)).toEqual(['ship_to_gstin']);
    expect((error as ValidationError).message).toContain('portal 609');
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('a sandbox GSTIN with the default options', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  it('is sent to a real server, and onWarning gets the finding', async () => {
    const received: { url: string | undefined; body: unknown }[] = [];
    server = createServer((request: IncomingMessage, response) => {
      let text = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => {
        text += chunk;
      });
      request.on('end', () => {
        received.push({ url: request.url, body: JSON.parse(text) });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ success: true, message: 'E-way bill 141000000001 generated' }));
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const warnings: PreflightFinding[] = [];
    const client = new ServiceClient({
      apiKey: freshKey('sandbox'),
      baseUrl: `http://127.0.0.1:${port}/api`,
      fetch: globalThis.fetch,
      onWarning: (finding) => {
        warnings.push(finding);
      },
    });
    const result = await client.createEwayBill('doc_sandbox', billToShipTo('29AABCT1332L000'));
    expect(result.success).toBe(true);
    expect(received).toHaveLength(1);
    expect(received[0]?.url).toBe('/api/v2/ewaybill/doc_sandbox');
    expect(received[0]?.body).toMatchObject({ ship_to_gstin: '29AABCT1332L000' });
    expect(warnings.map((finding) => [finding.rule, finding.field, finding.portalCodes])).toEqual([
      ['ship-to-gstin', 'ship_to_gstin', [609]],
    ]);
    expect(warnings[0]?.message).toContain("NIC's sandbox test GSTINs");
  });
});
