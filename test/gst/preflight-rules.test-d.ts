import { describe, expectTypeOf, it } from 'vitest';
import type { PreflightFinding, PreflightRule } from '../../src/gst/index.js';
import type { RULES } from '../../src/gst/preflight-rules.js';
import type { RuleDefinition, RuleGroup } from '../../src/gst/preflight-types.js';

const rule: RuleDefinition = { portalCodes: [202], check: () => {} };

describe('the preflight rules are a record keyed by rule id', () => {
  it('has exactly the rule ids as keys', () => {
    expectTypeOf<keyof typeof RULES>().toEqualTypeOf<PreflightRule>();
  });

  it('refuses a table that misses a rule, or a group that names an id that is not a rule', () => {
    // @ts-expect-error every rule id needs its definition
    const missing: { readonly [K in PreflightRule]: RuleDefinition } = { 'supply-sub-supply': rule };
    // @ts-expect-error 'no-such-rule' is not a rule id
    const unknown: RuleGroup<'no-such-rule'> = { 'no-such-rule': rule };
    const extra: RuleGroup<'odc-road-only'> = {
      'odc-road-only': rule,
      // @ts-expect-error a group holds only the ids it names
      'road-transporter': rule,
    };
    expectTypeOf(missing).not.toBeAny();
    expectTypeOf(unknown).not.toBeAny();
    expectTypeOf(extra).not.toBeAny();
  });

  it('gives each finding its portal codes and, optionally, its document', () => {
    expectTypeOf<PreflightFinding['portalCodes']>().toEqualTypeOf<readonly number[]>();
    expectTypeOf<PreflightFinding['docHashId']>().toEqualTypeOf<string | undefined>();
  });
});
