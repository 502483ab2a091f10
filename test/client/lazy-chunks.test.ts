// The parts of the client imported on first use (issue 21, item 2): the preflight rules on the first e-way bill call,
// the error mapping with the portal's descriptions on the first error answer. Each test imports the SDK afresh
// (vi.resetModules), so nothing is loaded yet, as in a new process or a bundle that has loaded its first chunk only.
import type * as Sdk from 'invoicing-service-sdk';
import type { PreflightFinding } from 'invoicing-service-sdk/gst';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { recordingFetch } from '../helpers/fake-fetch.js';
import { freshKey, validModel } from '../helpers/model.js';

let sdk: typeof Sdk;
beforeEach(async () => {
  vi.resetModules();
  sdk = await import('invoicing-service-sdk');
});

// An export to the United States written with an Indian state and PIN code: two preflight findings.
const exportAbroad = () =>
  validModel({ sub_supply_type: 'Export', dispatch_to: { ...validModel().dispatch_to, country: 'United States' } });

function client(options: Partial<Sdk.ServiceClientOptions> = {}, ...answers: Response[]) {
  const { fetch, calls } = recordingFetch(...answers);
  const acquired: string[] = [];
  const rateLimiter: Sdk.RateLimiter = { acquire: async (id) => void acquired.push(id) };
  const made = new sdk.ServiceClient({
    apiKey: freshKey(),
    baseUrl: 'https://s.test/api',
    fetch,
    rateLimiter,
    ...options,
  });
  return { client: made, calls, acquired };
}

describe('the preflight, imported on the first e-way bill call', () => {
  it('in strict mode refuses the first calls (made at once, before the rules are loaded) and sends nothing', async () => {
    const { client: c, calls, acquired } = client({ preflight: 'strict' });
    const errors = await Promise.all([1, 2, 3].map((n) => c.createEwayBill(`doc${n}`, exportAbroad()).catch((e) => e)));
    for (const error of errors) {
      expect(error).toBeInstanceOf(sdk.ValidationError);
      expect((error as Sdk.ValidationError).issues.map((issue) => issue.field)).toEqual([
        'dispatch_to.state',
        'dispatch_to.pincode',
      ]);
    }
    expect([calls.length, acquired.length]).toEqual([0, 0]);
  });

  it('warns before the first request leaves, and sends the first calls in the order they were made', async () => {
    const events: string[] = [];
    const { fetch } = recordingFetch();
    const recording: typeof globalThis.fetch = (input, init) => {
      events.push(
        `sent ${String(input instanceof Request ? input.url : input)
          .split('/')
          .at(-1)}`,
      );
      return fetch(input, init);
    };
    const { client: c } = client({
      fetch: recording,
      onWarning: (finding: PreflightFinding) => events.push(`warned ${finding.docHashId} ${finding.field}`),
    });
    await Promise.all([c.createEwayBill('a', exportAbroad()), c.createEwayBill('b', validModel())]);
    expect(events).toEqual(['warned a dispatch_to.state', 'warned a dispatch_to.pincode', 'sent a', 'sent b']);
  });

  it('checks the model when called: a change the caller makes afterwards is not sent', async () => {
    const { client: c, calls } = client();
    const model = validModel({ vehicle_number: 'MH12AB1234' });
    const sent = c.createEwayBill('doc', model);
    model.vehicle_number = 'KA01XY9999';
    await sent;
    expect(JSON.parse(calls[0]?.body ?? '{}')).toMatchObject({ vehicle_number: 'MH12AB1234' });
  });
});

describe("the portal's descriptions, imported with the first error answer", () => {
  const portalAnswer = (code: number) =>
    Response.json({ success: false, error_code: `PORTAL_ERROR_${code}` }, { status: 400 });

  it('are loaded before the first error answer is mapped: the thrown PortalError carries its description', async () => {
    const { client: c } = client({ maxRetries: 0 }, portalAnswer(114));
    const error = await c.createEwayBill('doc', validModel()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(sdk.PortalError);
    expect(error).toMatchObject({
      portalCode: 114,
      portalMessage: 'Technical Error, Pl. contact the helpdesk.',
      category: 'retryable',
      retryable: true,
    });
    expect((error as Sdk.PortalError).message).toMatch(
      /\(portal error 114: Technical Error, Pl\. contact the helpdesk\.\)$/,
    );
  });

  it('reach the hooks too: onResponse sees the mapped error code of the first error answer', async () => {
    const codes: (string | undefined)[] = [];
    const { client: c } = client(
      { maxRetries: 0, hooks: { onResponse: (event) => void codes.push(event.serviceErrorCode) } },
      portalAnswer(604),
    );
    const error = await c.createEwayBill('doc', validModel()).catch((e: unknown) => e);
    expect(sdk.isAlreadyGenerated(error)).toBe(true);
    expect((error as Sdk.PortalError).portalMessage).toMatch(/already generated for the same document number/);
    expect(codes).toEqual(['PORTAL_ERROR_604']);
  });

  it('a PortalError made by hand has the description it is given, whatever was imported before', async () => {
    // Nothing but the root is imported (vi.resetModules above): no error answer mapped, no code looked up.
    const early = new sdk.PortalError({ status: 400, message: 'x', portalCode: 238 });
    expect(early).toMatchObject({ category: 'retryable', retryable: true, portalMessage: undefined, message: 'x' });
    expect(new sdk.PortalError({ status: 400, message: 'x', portalCode: 99999 })).toMatchObject({
      category: 'other',
      retryable: false,
    });
    // Looking codes up (the gst subpath loads the portal's list) changes nothing: the lookup is explicit.
    const { describePortalError } = await import('invoicing-service-sdk/gst');
    const portalMessage = describePortalError(238).description;
    expect(portalMessage).toBe('Invalid auth token');
    const later = new sdk.PortalError({ status: 400, message: 'x', portalCode: 238 });
    expect([later.portalMessage, later.message]).toEqual([early.portalMessage, early.message]);
    expect(new sdk.PortalError({ status: 400, message: 'x', portalCode: 238, portalMessage })).toMatchObject({
      portalMessage: 'Invalid auth token',
      message: 'x (portal error 238: Invalid auth token)',
    });
  });
});
