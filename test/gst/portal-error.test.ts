import { ApiError, PortalError, ServiceClient } from 'invoicing-service-sdk';
import { describePortalError } from 'invoicing-service-sdk/gst';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { isAlreadyGenerated } from '../../src/errors/portal-error.js';
import { freshKey, validModel } from '../helpers/model.js';
import { BASE_URL, useMswServer } from '../helpers/msw.js';

const server = useMswServer();

const portalError = (portalCode: number, said?: string) => {
  const errorCode = `PORTAL_ERROR_${portalCode}`;
  const body =
    said === undefined
      ? { success: false, error_code: errorCode }
      : { success: false, error_code: errorCode, message: said };
  const message = said ?? 'The service answered HTTP 400 without an error message';
  // Made by hand, a PortalError has the description it is given: here, the portal list's, as the client's mapping gives.
  const portalMessage = describePortalError(portalCode).description;
  return new PortalError({ status: 400, errorCode, message, body, portalCode, portalMessage });
};

describe('PortalError', () => {
  it("carries the portal's description, category and retryability of its code", () => {
    const error = portalError(108);
    expect(error.portalMessage).toBe('Invalid login credentials.');
    expect(error.category).toBe('auth');
    expect(error.retryable).toBe(false);
    // The service's portal session expired: transient for the partner (issue 12).
    expect(portalError(238)).toMatchObject({ category: 'retryable', retryable: true });
    expect(portalError(114)).toMatchObject({ category: 'retryable', retryable: true });
  });

  it("appends the portal's description when the service gave no message, or one that only repeats the code", () => {
    expect(portalError(238).message).toBe(
      'The service answered HTTP 400 without an error message (portal error 238: Invalid auth token)',
    );
    expect(portalError(238, 'PORTAL_ERROR_238').message).toBe(
      'PORTAL_ERROR_238 (portal error 238: Invalid auth token)',
    );
    expect(portalError(238, ' 238 ').message).toContain('Invalid auth token');
  });

  it("keeps the service's own message as it is", () => {
    expect(portalError(238, 'Invalid pincode').message).toBe('Invalid pincode');
    expect(portalError(238, 'Invalid pincode').portalMessage).toBe('Invalid auth token');
  });

  it('gives the portal description to a client call whose answer had no message', async () => {
    server.use(
      http.post(`${BASE_URL}/v2/ewaybill/:id`, () =>
        HttpResponse.json({ success: false, error_code: 'PORTAL_ERROR_114' }, { status: 400 }),
      ),
    );
    const client = new ServiceClient({ apiKey: freshKey('gst'), baseUrl: BASE_URL, maxRetries: 0 });
    const error = await client.createEwayBill('doc1', validModel()).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ portalCode: 114, category: 'retryable', retryable: true });
    expect((error as PortalError).message).toMatch(
      /\(portal error 114: Technical Error, Pl\. contact the helpdesk\.\)$/,
    );
  });

  it('still works for a code the list does not have', () => {
    const error = portalError(99999);
    expect(error).toMatchObject({ portalCode: 99999, portalMessage: undefined, category: 'other', retryable: false });
    expect(error.message).toBe('The service answered HTTP 400 without an error message');
  });

  it('shows the new fields in its JSON form', () => {
    expect(portalError(604).toJSON()).toMatchObject({ code: 'PORTAL_ERROR', portalCode: 604, category: 'state' });
  });
});

describe('isAlreadyGenerated', () => {
  it('is true for portal code 604 only', () => {
    expect(isAlreadyGenerated(portalError(604))).toBe(true);
    expect(isAlreadyGenerated(portalError(238))).toBe(false);
    for (const other of [undefined, null, 'PORTAL_ERROR_604', new Error('PORTAL_ERROR_604'), { portalCode: 604 }]) {
      expect(isAlreadyGenerated(other)).toBe(false);
    }
  });

  it('recognises a 604 error of another copy of the SDK, and an ApiError whose error_code is PORTAL_ERROR_604', () => {
    const lineage = Symbol.for('invoicing-service-sdk.error-lineage');
    const foreign = Object.assign(new Error('x'), {
      portalCode: 604,
      [lineage]: ['PORTAL_ERROR', 'API_ERROR', 'SERVICE_ERROR'],
    });
    expect(isAlreadyGenerated(foreign)).toBe(true);
    expect(isAlreadyGenerated(new ApiError({ status: 400, errorCode: 'PORTAL_ERROR_604', message: 'x' }))).toBe(true);
  });

  it('recognises the answer of the service to a second generation for the same document', async () => {
    server.use(
      http.post(`${BASE_URL}/v2/ewaybill/:id`, () =>
        HttpResponse.json(
          { success: false, error_code: 'PORTAL_ERROR_604', message: 'Could not generate the e-way bill', errors: {} },
          { status: 400 },
        ),
      ),
    );
    const client = new ServiceClient({ apiKey: freshKey('gst'), baseUrl: BASE_URL, maxRetries: 0 });
    const error = await client.createEwayBill('doc1', validModel()).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PortalError);
    expect(error).toMatchObject({ category: 'state', retryable: false });
    expect((error as PortalError).message).toBe('Could not generate the e-way bill');
    expect((error as PortalError).portalMessage).toContain('already generated for the same document number');
    expect(isAlreadyGenerated(error)).toBe(true);
  });
});
