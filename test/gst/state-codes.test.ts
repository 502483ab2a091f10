import { STATES } from 'invoicing-service-sdk/model';
import { describe, expect, it } from 'vitest';
import { STATE_CODES, stateCode, stateFromCode } from '../../src/gst/index.js';

describe('GST state codes', () => {
  it('gives every state of the spec a two-digit code from 01 to 38, or 97', () => {
    expect(Object.keys(STATE_CODES).sort()).toEqual([...STATES].sort());
    for (const state of STATES) {
      const code = stateCode(state);
      expect(code, state).toMatch(/^\d{2}$/);
      expect(Number(code) <= 38 || code === '97', state).toBe(true);
    }
  });

  it('maps the states whose codes are easily confused', () => {
    expect(stateCode('LADAKH(NEWLYADDED)')).toBe('38');
    expect(stateCode('LADAKH(NEWLY ADDED)')).toBe('38');
    expect(stateCode('ANDHRAPRADESH(BEFOREADDED)')).toBe('28');
    expect(stateCode('ANDHRA PRADESH')).toBe('37');
    expect(stateCode('TELANGANA')).toBe('36');
    expect(stateCode('DADRA & NAGAR HAVELI & DAMAN & DIU')).toBe('26');
    expect(stateCode('LAKSHWADEEP')).toBe('31');
    expect(stateCode('OTHER TERRITORY')).toBe('97');
    expect(stateCode('JAMMU AND KASHMIR')).toBe('01');
  });

  it('gives each code to one state, except 38 which both spellings of Ladakh share', () => {
    const codes = Object.values(STATE_CODES);
    expect(new Set(codes).size).toBe(codes.length - 1);
  });

  it('finds the state of a code, the first spelling of Ladakh for 38, and nothing for an unused code', () => {
    expect(stateFromCode('27')).toBe('MAHARASHTRA');
    expect(stateFromCode(7)).toBe('DELHI');
    expect(stateFromCode('38')).toBe('LADAKH(NEWLYADDED)');
    expect(stateFromCode('25')).toBeUndefined();
    expect(stateFromCode('7')).toBeUndefined();
    expect(stateFromCode(7.5)).toBeUndefined();
    for (const state of STATES) expect(stateCode(stateFromCode(stateCode(state)) ?? 'none')).toBe(stateCode(state));
  });

  it("maps NIC's codes for places outside India (96, 97, 99) to OTHER TERRITORY (issue 20 item 4)", () => {
    // 96: e-invoice schema, place of supply "Other Country"; 97: GST state code list, "Other Territory";
    // 99: e-way bill API state master, "Other Country" (the toStateCode of an export, odoo PR #279289).
    for (const code of ['96', '97', '99', 96, 97, 99])
      expect(stateFromCode(code), String(code)).toBe('OTHER TERRITORY');
    expect(stateCode('OTHER TERRITORY')).toBe('97');
    expect(stateFromCode('98')).toBeUndefined();
  });

  it('answers undefined for a state not spelled as the spec spells it, and cannot be changed', () => {
    expect(stateCode('Maharashtra')).toBeUndefined();
    expect(stateCode('toString')).toBeUndefined();
    expect(Object.isFrozen(STATE_CODES)).toBe(true);
  });
});
