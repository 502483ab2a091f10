// Issue 29 item 3: an error is built right once. `mayHaveSucceeded` is decided when an error is made and never
// redefined after; an error made by someone else (a partner's rate limiter) is never rewritten: a call that needs to
// say more makes a new error, the original as its cause.
import {
  createEwayBillOnce,
  type RateLimiter,
  RateLimiterUnavailableError,
  ServiceClient,
} from 'invoicing-service-sdk';
import { describe, expect, it } from 'vitest';
import { recordingFetch } from '../helpers/fake-fetch.js';
import { freshKey, validModel } from '../helpers/model.js';

const serverError = (): Response => Response.json({ success: false, message: 'busy' }, { status: 500 });

describe('errors are built once', () => {
  it("a limiter's own error on the resend is not rewritten: a new RateLimiterUnavailableError says the bill may exist", async () => {
    // The limiter's error, made once and thrown as it is (a limiter may keep one for its outage).
    const outage = new RateLimiterUnavailableError('store down');
    let grants = 0;
    const rateLimiter: RateLimiter = {
      acquire: async () => {
        grants += 1;
        if (grants > 1) throw outage;
      },
    };
    const { fetch, calls } = recordingFetch(serverError());
    const client = new ServiceClient({ apiKey: freshKey('once'), baseUrl: 'https://s.test/api', fetch, rateLimiter });
    const error = await createEwayBillOnce(client, 'doc', validModel(), { maxRetries: 0, resendDelayMs: 0 }).catch(
      (e: unknown) => e,
    );
    expect(calls).toHaveLength(1);
    expect(error).toBeInstanceOf(RateLimiterUnavailableError);
    expect(error).not.toBe(outage);
    expect(error).toMatchObject({ mayHaveSucceeded: true, cause: outage });
    expect((error as Error).message).toMatch(
      /^store down \(an earlier attempt of this call may have reached the service/,
    );
    // The limiter's own error says what it said when it was made.
    expect(outage).toMatchObject({ mayHaveSucceeded: false, message: 'store down' });
  });
});
