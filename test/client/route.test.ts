// The `route` option's check (src/client/route.ts): a template of the path, decided in time linear in the path.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRoute } from '../../src/client/route.js';

/** The check as a regular expression, as it was written first: the reference for what a template of a path is. */
function reference(route: string, path: string): boolean {
  const literals = route.split(/\{[A-Za-z_][\w.-]*\}/).map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${literals.join('[^/]+')}$`).test(path);
}

const accepts = (route: string, path: string) => {
  try {
    return checkRoute(route, path) === route;
  } catch (error) {
    if (error instanceof TypeError && /is not a template of the path/.test(error.message)) return false;
    throw error;
  }
};

describe('request() route: a template of the path', () => {
  it('decides as the regular expression does, on short routes and paths of a small alphabet', () => {
    const piece = fc.constantFrom('a', 'b', '-', '/', '{x}', '{y}', 'ab');
    const text = fc.array(fc.constantFrom('a', 'b', '-', '/'), { maxLength: 12 }).map((chars) => `/${chars.join('')}`);
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 6 }).map((pieces) => `/${pieces.join('')}`),
        text,
        (route, path) => accepts(route, path) === reference(route, path),
      ),
      { numRuns: 3000 },
    );
  });

  it('answers a long path that does not match without backtracking (six placeholders, a 2,000-character id)', () => {
    // A regular expression built from this route backtracked for minutes on such a path, blocking the process.
    const route = `/${'{a}a'.repeat(6)}c`;
    expect(accepts(route, `/${'a'.repeat(2000)}b`)).toBe(false);
    expect(accepts('/v2/doc/{gstin}-{year}-{no}', `/v2/doc/${'-'.repeat(2000)}/x`)).toBe(false);
    expect(accepts('/v2/doc/{gstin}-{year}-{no}', '/v2/doc/27AAAPL1234C1Z5-2026-17')).toBe(true);
  });
});
