import type { State } from 'invoicing-service-sdk/model';
import { describe, expectTypeOf, it } from 'vitest';
import {
  checkGstin,
  type GstStateCode,
  isValidGstin,
  type PreflightFinding,
  type PreflightRule,
  type STATE_CODES,
  stateCode,
  stateFromCode,
} from '../../src/gst/index.js';

describe('types of the GST helpers', () => {
  it('keys STATE_CODES by exactly the spec states', () => {
    expectTypeOf<keyof typeof STATE_CODES>().toEqualTypeOf<State>();
    expectTypeOf<GstStateCode>().toExtend<string>();
  });

  it('answers a code for a State and maybe a code for any string', () => {
    expectTypeOf(stateCode('MAHARASHTRA')).toEqualTypeOf<GstStateCode>();
    expectTypeOf(stateCode('' as string)).toEqualTypeOf<GstStateCode | undefined>();
    expectTypeOf(stateFromCode('27')).toEqualTypeOf<State | undefined>();
    // @ts-expect-error a code is a string or a number
    stateFromCode(null);
  });

  it('types the rule of a finding', () => {
    expectTypeOf<PreflightFinding['rule']>().toEqualTypeOf<PreflightRule>();
  });
});

describe('types of the GSTIN checks', () => {
  it('does not narrow a string to never when a GSTIN is invalid', () => {
    const value: string = '27AAPFU0939F1ZX';
    if (!isValidGstin(value)) expectTypeOf(value).toEqualTypeOf<string>();
    const check = checkGstin(value);
    if (check.valid) expectTypeOf(check.gstin.state).toEqualTypeOf<State>();
    else expectTypeOf(check.problem.kind).toExtend<string>();
  });
});
