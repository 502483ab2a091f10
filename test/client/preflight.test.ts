import { type RateLimiter, ServiceClient, ValidationError } from 'invoicing-service-sdk';
import type { PreflightFinding } from 'invoicing-service-sdk/gst';
import { describe, expect, it, vi } from 'vitest';
import { recordingFetch } from '../helpers/fake-fetch.js';
import { freshKey, validModel } from '../helpers/model.js';

// An export to the United States written with an Indian state and PIN code: the portal refuses it, the spec does not
// say so.
const exportToIndia = () =>
  validModel({ sub_supply_type: 'Export', dispatch_to: { ...validModel().dispatch_to, country: 'United States' } });

function client(options: Partial<ConstructorParameters<typeof ServiceClient>[0]> = {}) {
  const { fetch, calls } = recordingFetch();
  const acquired: string[] = [];
  const rateLimiter: RateLimiter = { acquire: async (id) => void acquired.push(id) };
  return {
    client: new ServiceClient({ apiKey: freshKey(), baseUrl: 'https://s.test/api', fetch, rateLimiter, ...options }),
    calls,
    acquired,
  };
}

describe('preflight of the portal rules in the client', () => {
  it('warns by default: findings go to onWarning and the request is still sent', async () => {
    const findings: PreflightFinding[] = [];
    const { client: c, calls } = client({ onWarning: (f) => findings.push(f) });
    await c.createEwayBill('doc', exportToIndia());
    expect(calls).toHaveLength(1);
    expect(findings.map((f) => [f.rule, f.field])).toEqual([
      ['export-dispatch-to', 'dispatch_to.state'],
      ['export-dispatch-to', 'dispatch_to.pincode'],
    ]);
  });

  it('sends warnings to the logger when there is no onWarning', async () => {
    const warnings: string[] = [];
    const { client: c } = client({ logger: { debug: () => {}, warn: (m) => void warnings.push(m) } });
    await c.createEwayBill('doc', exportToIndia());
    expect(warnings.filter((w) => w.includes('preflight'))).toHaveLength(2);
  });

  it('in strict mode, throws a ValidationError naming the fields, and sends nothing', async () => {
    const { client: c, calls, acquired } = client({ preflight: 'strict' });
    const error = await c.createEwayBill('doc', exportToIndia()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.field)).toEqual(['dispatch_to.state', 'dispatch_to.pincode']);
    expect([calls.length, acquired.length]).toEqual([0, 0]);
  });

  it('in strict mode, sends a model that follows the rules', async () => {
    const { client: c, calls } = client({ preflight: 'strict' });
    await c.createEwayBill('doc', validModel());
    expect(calls).toHaveLength(1);
  });

  it("when 'off', neither warns nor blocks", async () => {
    const findings: PreflightFinding[] = [];
    const { client: c, calls } = client({ preflight: 'off', onWarning: (f) => findings.push(f) });
    await c.createEwayBill('doc', exportToIndia());
    expect([calls.length, findings.length]).toEqual([1, 0]);
  });

  it('rejects an unknown mode with a TypeError that lists the modes', () => {
    expect(() => client({ preflight: 'loud' as never })).toThrow(/preflight must be one of 'off', 'warn', 'strict'/);
  });
});

describe('preflight warnings without onWarning or a logger', () => {
  it('go to console.warn, so the default warn mode is never silent', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const { client: c } = client();
      await c.createEwayBill('doc', exportToIndia());
      expect(warn.mock.calls.map((call) => String(call[0]))).toEqual([
        expect.stringContaining('preflight: dispatch_to.state'),
        expect.stringContaining('preflight: dispatch_to.pincode'),
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});
