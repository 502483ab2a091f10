import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { ValidationError } from '../../src/errors/validation-error.js';
import { messageOf, SDK_MESSAGES } from '../../src/internal/issue-message.js';
import { EwayBillAddressSchema } from '../../src/model/schemas.js';

// zod/mini loads no locale: every message of the SDK's schemas is written by src/internal/issue-message.ts, per issue code.

/** The messages of a schema's issues for a value, parsed as the client parses (the input reported). */
function messages(schema: z.ZodMiniType, value: unknown): string[] {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) throw new Error(`expected ${JSON.stringify(value)} to fail`);
  return parsed.error.issues.map(messageOf);
}

describe('issue messages without any zod locale', () => {
  it('runs where no locale is loaded, so a message zod wrote itself would read "Invalid input"', () => {
    expect(z.config().localeError).toBeUndefined();
    expect(z.string().safeParse(1).error?.issues[0]?.message).toBe('Invalid input');
  });

  it.each([
    ['a wrong type', z.string(), 42, 'Expected string; got 42'],
    ['a fraction for an integer', z.int(), 2.5, 'Expected integer; got 2.5'],
    ['a missing value', z.object({ a: z.number() }), {}, 'Required (number)'],
    ['a value outside a short list', z.enum(['Road', 'Rail']), 'road', "Expected one of 'Road', 'Rail'; got 'road'"],
    ['a missing value of a list', z.object({ m: z.enum(['Road', 'Rail']) }), {}, "Required (one of 'Road', 'Rail')"],
    ['a literal', z.literal('URP'), 'urp', "Expected 'URP'; got 'urp'"],
    ['a number below a minimum', z.number().check(z.minimum(0)), -1, 'Expected at least 0; got -1'],
    ['a number above an exclusive maximum', z.number().check(z.lt(10)), 10, 'Expected less than 10; got 10'],
    [
      'a string too short',
      z.string().check(z.minLength(2)),
      'a',
      "Expected at least 2 characters; got 'a' (1 character)",
    ],
    [
      'a string of a fixed length',
      z.string().check(z.length(15)),
      'ab',
      "Expected exactly 15 characters; got 'ab' (2 characters)",
    ],
    [
      'an array too long',
      z.array(z.number()).check(z.maxLength(1)),
      [1, 2],
      'Expected at most 1 item; got [1,2] (2 items)',
    ],
    ['a number not a multiple', z.number().check(z.multipleOf(5)), 7, 'Expected a multiple of 5; got 7'],
    ['a string in the wrong format', z.email(), 'x', "Expected text in the email format; got 'x'"],
    ['no option of a union', z.union([z.int(), z.string()]), true, 'Expected number or string; got true'],
  ])('says what was expected and what was got for %s', (_label, schema, value, message) => {
    expect(messages(schema as z.ZodMiniType, value)).toEqual([message]);
  });

  it('names every unknown field, and never repeats the path', () => {
    const issues = messages(EwayBillAddressSchema, { ...validAddress(), zip: '1', line3: 'x' });
    expect(issues).toEqual(["Unknown fields 'zip', 'line3': not in the spec (check the spelling)"]);
  });

  it('keeps a rule’s own message and adds what was got', () => {
    const schema = z.string().check(z.refine((value) => value === 'URP', { error: "Expected 'URP'" }));
    expect(messages(schema, 'x')).toEqual(["Expected 'URP'; got 'x'"]);
  });

  it('leaves a rule without a message of its own to zod, instead of writing "undefined"', () => {
    const schema = z.string(SDK_MESSAGES).check(z.refine((value) => value === 'URP'));
    expect(schema.safeParse('x').error?.issues[0]?.message).toBe('Invalid input');
    expect(schema.safeParse('x', { error: () => 'mine' }).error?.issues[0]?.message).toBe('mine');
  });

  it('says only what was expected when zod did not report the input', () => {
    const parsed = z.number().check(z.minimum(0)).safeParse(-1);
    expect(parsed.error?.issues.map(messageOf)).toEqual(['Expected at least 0']);
  });

  it('gives the SDK’s schemas these messages at the source, for users who parse without reportInput', () => {
    const parsed = EwayBillAddressSchema.safeParse({ ...validAddress(), addr_id: -1, state: 'Delhi', city: undefined });
    expect(parsed.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)).toEqual([
      'addr_id: Expected at least 0; got -1',
      'city: Required (string)',
      "state: Expected one of 39 allowed values, spelled exactly (for example 'JAMMU AND KASHMIR', 'HIMACHAL PRADESH', 'PUNJAB'); got 'Delhi'",
    ]);
    expect(z.string(SDK_MESSAGES).safeParse(null).error?.issues[0]?.message).toBe('Expected string; got null');
  });

  it('turns the issues into a ValidationError with dotted paths', () => {
    const parsed = EwayBillAddressSchema.safeParse({ ...validAddress(), pincode: 411001 }, { reportInput: true });
    const error = ValidationError.fromZodError(parsed.error as z.core.$ZodError, 'address');
    expect(error.issues).toEqual([
      expect.objectContaining({ field: 'pincode', message: 'Expected string; got 411001' }),
    ]);
  });
});

function validAddress() {
  return {
    addr_id: 1,
    address_line1: '1 Main Road',
    address_line2: '',
    city: 'Pune',
    state: 'MAHARASHTRA',
    country: 'India',
    pincode: '411001',
  };
}

describe('ValidationError.fromZodError, public', () => {
  it("gives a user's own safeParse the error, messages and paths the client throws", async () => {
    const { ServiceClient, ValidationError: PublicValidationError } = await import('invoicing-service-sdk');
    const { EwayBillModelSchema } = await import('invoicing-service-sdk/model');
    const { buildEwayBillModel } = await import('invoicing-service-sdk/testing');
    const model = { ...buildEwayBillModel(), supply_type: 'Sideways', vehicle_no: 'MH12' };
    // reportInput: true, as the client parses, so the messages also say what was got.
    const parsed = EwayBillModelSchema.safeParse(model, { reportInput: true });
    if (parsed.success) throw new Error('expected the model to fail');
    const mine = PublicValidationError.fromZodError(parsed.error, 'e-way bill model');
    const client = new ServiceClient({ apiKey: 'k_from_zod_error_test', baseUrl: 'http://127.0.0.1:9/api' });
    const thrown = await client.createEwayBill('doc_1', model as never).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(PublicValidationError);
    expect(mine.message).toBe((thrown as Error).message);
    expect(mine.issues.map((issue) => issue.field)).toEqual(['supply_type', '(root)']);
    expect(PublicValidationError.fromZodError(parsed.error).message).toMatch(/^Invalid input: 2 problems/);
  });

  it('refuses what is not a zod error with a TypeError that says what it got', async () => {
    const { ValidationError: PublicValidationError } = await import('invoicing-service-sdk');
    for (const [value, got] of [
      [undefined, 'undefined'],
      [null, 'null'],
      [new Error('plain'), 'an object'],
      [{ issues: 'none' }, 'an object'],
    ] as const) {
      expect(() => PublicValidationError.fromZodError(value as never)).toThrow(
        new TypeError(
          `ValidationError.fromZodError: error must be the error of a failed safeParse (with issues); got ${got}`,
        ),
      );
    }
  });
});
