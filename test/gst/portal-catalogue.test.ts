import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describePortalError, PORTAL_ERROR_CATEGORIES, PORTAL_ERROR_CATEGORY_MEANINGS } from '../../src/gst/index.js';
import { portalErrorCategory } from '../../src/internal/portal-error-categories.js';
import { PORTAL_ERROR_CODES } from '../../src/internal/portal-error-codes.js';

describe('describePortalError', () => {
  it('reads a code given as a number, a string or the service error_code', () => {
    const expected = { code: 238, description: 'Invalid auth token', category: 'retryable', retryable: true };
    expect(describePortalError(238)).toEqual(expected);
    expect(describePortalError('238')).toEqual(expected);
    expect(describePortalError('PORTAL_ERROR_238')).toEqual(expected);
  });

  it('marks retryable exactly the codes of the retryable category', () => {
    expect(describePortalError(114)).toMatchObject({ category: 'retryable', retryable: true });
    expect(describePortalError(604)).toMatchObject({ category: 'state', retryable: false });
    for (const code of Object.keys(PORTAL_ERROR_CODES)) {
      const described = describePortalError(code);
      expect(described.retryable, code).toBe(described.category === 'retryable');
    }
  });

  it('describes an unknown code as category other, without a description', () => {
    expect(describePortalError(99999)).toEqual({
      code: 99999,
      description: undefined,
      category: 'other',
      retryable: false,
    });
    expect(describePortalError('PORTAL_ERROR_1')).toMatchObject({ description: undefined, category: 'other' });
  });

  it('throws a TypeError for anything that is not a portal code', () => {
    for (const bad of ['abc', 'PORTAL_ERROR_', 'PORTAL_ERROR_x', '-5', Number.NaN]) {
      expect(() => describePortalError(bad), String(bad)).toThrow(TypeError);
    }
  });

  it.each([
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [Number.NEGATIVE_INFINITY, '-Infinity'],
    [Number.NaN, 'NaN'],
    [-0.5, '-0.5'],
    [1.5, '1.5'],
    [-5, '-5'],
    [2 ** 53, '9007199254740992'],
    ['99999999999999999999', "'99999999999999999999'"],
  ])('refuses %s, which is not a safe non-negative integer, naming it', (bad, shown) => {
    expect(() => describePortalError(bad)).toThrow(new RegExp(`non-negative integer.*; got ${shown}$`));
  });

  it.each([
    [238n, '238n'],
    [null, 'null'],
    [undefined, 'undefined'],
    [{ toString: () => '238' }, '{}'],
    [Object.create(null), '{}'],
    [{ code: 238 }, '{"code":238}'],
    [['238'], '["238"]'],
    [Symbol('x'), 'Symbol(x)'],
  ])('describes the bad input %s in a TypeError without failing on it', (bad, shown) => {
    const error = (() => {
      try {
        describePortalError(bad as unknown as number);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toMatch(/^describePortalError expects a portal code/);
    expect((error as TypeError).message.endsWith(`; got ${shown}`)).toBe(true);
  });

  it('accepts 0 and the largest safe integer as codes (unknown ones)', () => {
    expect(describePortalError(0)).toMatchObject({ code: 0, category: 'other' });
    expect(describePortalError(Number.MAX_SAFE_INTEGER).code).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('the portal error catalogue', () => {
  it('holds the 383 codes of the published list and 4042 published since, in its five categories', () => {
    const entries = Object.values(PORTAL_ERROR_CODES);
    expect(entries).toHaveLength(384);
    const counts = Object.fromEntries(PORTAL_ERROR_CATEGORIES.map((c) => [c, 0]));
    for (const entry of entries) counts[entry.category] = (counts[entry.category] ?? 0) + 1;
    expect(counts).toEqual({ auth: 13, retryable: 55, validation: 236, state: 67, other: 13 });
    expect(Object.keys(PORTAL_ERROR_CATEGORY_MEANINGS)).toEqual([...PORTAL_ERROR_CATEGORIES]);
  });

  it("gives every code the same category in the compact table PortalError reads as in the list, and 'other' to the rest", () => {
    for (const [code, entry] of Object.entries(PORTAL_ERROR_CODES)) {
      expect(portalErrorCategory(Number(code)), code).toBe(entry.category);
    }
    for (const unknown of [0, 1, 99, 119, 866, 999, 1000, 4041, 4043, 99999, Number.MAX_SAFE_INTEGER]) {
      expect(portalErrorCategory(unknown), String(unknown)).toBe('other');
    }
  });

  it('keeps the wording as published, typos and double spaces included', () => {
    expect(describePortalError(111).description).toBe('GSTIN is not registerd to this GSP');
    expect(describePortalError(206).description).toBe('Invaild Invoice Number');
    expect(describePortalError(681).description).toBe('Error in Closing EWB  Verification Data');
  });

  it('holds the six corrected descriptions (issue 12), each now matching its pair or its meaning', () => {
    expect(describePortalError(817).description).not.toBe(describePortalError(805).description);
    expect(describePortalError(817).description).toMatch(/MultiVehicleMovement/);
    expect(describePortalError(436).description).toBe('Invalid Consignee ship to State Code for the given pincode');
    expect(describePortalError(373).description).toMatch(/ship-to state code .* Export$/);
    expect(describePortalError(375).description).toMatch(/ship-from state code .* Import$/);
    expect(describePortalError(712).description).toMatch(/not required as the goods are in movement/);
    expect(describePortalError(713).description).toMatch(/not required as the goods are in movement/);
  });

  it("treats the expiry of the service's portal session (105, 106, 238) as transient for the partner", () => {
    for (const code of [105, 106, 238]) {
      expect(describePortalError(code), String(code)).toMatchObject({ category: 'retryable', retryable: true });
    }
    // The service's own portal credentials being wrong is not transient.
    expect(describePortalError(108)).toMatchObject({ category: 'auth', retryable: false });
  });

  it('names its source and how to regenerate it in the generated file, and the source of each code added since', () => {
    const text = readFileSync(resolve('src/internal/portal-error-codes.ts'), 'utf8');
    expect(text).toMatch(/Added after the source list was compiled, each with its own source: 4042\./);
    expect(text).toMatch(
      /\/\/ Source: NIC e-way bill system, additional validations of 17-12-2024[\s\S]*#3929[\s\S]*\n {2}4042: /,
    );
    expect(text).toMatch(/GENERATED by scripts\/generate-portal-codes\.mjs/);
    expect(text).toMatch(/Source: NIC e-way bill API error code list/);
  });
});

describe('scripts/generate-portal-codes.mjs', () => {
  const script = resolve('scripts/generate-portal-codes.mjs');
  const run = (cwd: string, ...args: string[]) =>
    execFileSync(process.execPath, [script, ...args], { cwd, encoding: 'utf8', stdio: 'pipe' });
  const list = (codes: Record<string, unknown>) =>
    JSON.stringify({ source: 'a test list', categories: { auth: 'a', other: 'b' }, codes });

  it('writes a file that its --check accepts, quoting text as the formatter does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portal-codes-'));
    try {
      mkdirSync(join(dir, 'src/internal'), { recursive: true });
      writeFileSync(
        join(dir, 'list.json'),
        list({ 7: { description: "it's", category: 'other' }, 5: { description: 'Bad  token', category: 'auth' } }),
      );
      run(dir, 'list.json');
      const text = readFileSync(join(dir, 'src/internal/portal-error-codes.ts'), 'utf8');
      expect(text).toContain(
        `  5: { description: 'Bad  token', category: 'auth' },\n  7: { description: "it's", category: 'other' },`,
      );
      const categories = readFileSync(join(dir, 'src/internal/portal-error-categories.ts'), 'utf8');
      expect(categories).toContain("const NAMES: readonly PortalErrorCategory[] = ['auth', 'other'];");
      expect(categories).toContain('const FIRST_CODE = 5;\n');
      expect(categories).toContain("  '0-1',\n");
      expect(run(dir, '--check', 'list.json')).toContain('is current (2 codes)');
      writeFileSync(join(dir, 'list.json'), list({ 5: { description: 'Changed', category: 'auth' } }));
      expect(() => run(dir, '--check', 'list.json')).toThrow(/out of date/);
      // The categories alone drifting is drift too.
      writeFileSync(
        join(dir, 'list.json'),
        list({ 7: { description: "it's", category: 'other' }, 5: { description: 'Bad  token', category: 'auth' } }),
      );
      run(dir, 'list.json');
      writeFileSync(join(dir, 'src/internal/portal-error-categories.ts'), categories.replace("'0-1'", "'1-1'"));
      expect(() => run(dir, '--check', 'list.json')).toThrow(/portal-error-categories\.ts is out of date/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds the committed catalogue current against the committed JSON (fails on drift)', () => {
    expect(run(process.cwd(), '--check')).toContain('is current (384 codes)');
  });

  it('fails its --check when the JSON and the TypeScript disagree by one description or one category', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portal-codes-'));
    try {
      mkdirSync(join(dir, 'src/internal'), { recursive: true });
      for (const file of ['portal-error-codes.ts', 'portal-error-categories.ts']) {
        writeFileSync(join(dir, 'src/internal', file), readFileSync(resolve('src/internal', file)));
      }
      const json = JSON.parse(readFileSync(resolve('src/gst/data/ewaybill-portal-error-codes.json'), 'utf8'));
      writeFileSync(join(dir, 'same.json'), JSON.stringify(json));
      expect(run(dir, '--check', 'same.json')).toContain('is current');
      json.codes['436'].description = 'Invalid email id';
      writeFileSync(join(dir, 'described.json'), JSON.stringify(json));
      expect(() => run(dir, '--check', 'described.json')).toThrow(/out of date/);
      json.codes['436'].description = describePortalError(436).description;
      json.codes['604'].category = 'other';
      writeFileSync(join(dir, 'categorised.json'), JSON.stringify(json));
      expect(() => run(dir, '--check', 'categorised.json')).toThrow(/out of date/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a list with a category its header does not define', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portal-codes-'));
    try {
      writeFileSync(join(dir, 'list.json'), list({ 5: { description: 'x', category: 'misc' } }));
      expect(() => run(dir, 'list.json')).toThrow(/unknown category: misc/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
