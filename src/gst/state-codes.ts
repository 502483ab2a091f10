import type { State } from '../model/states.js';

/**
 * The two-digit GST state code of every value of `STATES` (the spec's spellings): the code that starts a GSTIN
 * of that state. Both spellings of Ladakh map to 38. `ANDHRAPRADESH(BEFOREADDED)` is Andhra Pradesh before the 2014
 * division (28); `ANDHRA PRADESH` is today's state (37). Dadra & Nagar Haveli and Daman & Diu were merged in 2020 into
 * one territory with code 26 (Daman & Diu's former code 25 is no longer used). `OTHER TERRITORY` is 97.
 *
 * This object is the single source: the reverse look-up is derived from it.
 */
export const STATE_CODES = Object.freeze({
  'JAMMU AND KASHMIR': '01',
  'HIMACHAL PRADESH': '02',
  PUNJAB: '03',
  CHANDIGARH: '04',
  UTTARAKHAND: '05',
  HARYANA: '06',
  DELHI: '07',
  RAJASTHAN: '08',
  'UTTAR PRADESH': '09',
  BIHAR: '10',
  SIKKIM: '11',
  'ARUNACHAL PRADESH': '12',
  NAGALAND: '13',
  MANIPUR: '14',
  MIZORAM: '15',
  TRIPURA: '16',
  MEGHALAYA: '17',
  ASSAM: '18',
  'WEST BENGAL': '19',
  JHARKHAND: '20',
  ODISHA: '21',
  CHHATTISGARH: '22',
  'MADHYA PRADESH': '23',
  GUJARAT: '24',
  'DADRA & NAGAR HAVELI & DAMAN & DIU': '26',
  MAHARASHTRA: '27',
  'ANDHRAPRADESH(BEFOREADDED)': '28',
  KARNATAKA: '29',
  GOA: '30',
  LAKSHWADEEP: '31',
  KERALA: '32',
  'TAMIL NADU': '33',
  PUDUCHERRY: '34',
  'ANDAMAN & NICOBAR': '35',
  TELANGANA: '36',
  'ANDHRA PRADESH': '37',
  'LADAKH(NEWLYADDED)': '38',
  'LADAKH(NEWLY ADDED)': '38',
  'OTHER TERRITORY': '97',
} as const satisfies Record<State, string>);

/** A GST state code: a value of {@link STATE_CODES}, for example `'27'` (Maharashtra). */
export type GstStateCode = (typeof STATE_CODES)[State];

// Where two spellings share a code (Ladakh), the first in STATES order wins, so the answer is stable.
const STATE_BY_CODE: ReadonlyMap<string, State> = new Map(
  (Object.entries(STATE_CODES) as [State, GstStateCode][]).reverse().map(([state, code]) => [code, state]),
);

/*
 * Codes NIC's payloads use for places outside India, besides GST's 97 ("Other Territory", the GST state code list):
 * 96 is "Other Country" in the e-invoice schema (place of supply of an export; india-compliance sends it for
 * overseas parties' e-invoices), and 99 is "Other Country" in the e-way bill API's state master (the toStateCode of
 * an export; odoo PR #279289 shows the portal's use of 99). The spec spells all of them `OTHER TERRITORY`.
 */
const OUTSIDE_INDIA_CODES: ReadonlySet<string> = new Set(['96', '97', '99']);

const twoDigits = (code: string | number): string | undefined =>
  typeof code === 'number' && Number.isInteger(code) ? String(code).padStart(2, '0') : (code as string);

/**
 * The state of a code that starts a GSTIN (01 to 38, and 97): not 96 or 99, which no GSTIN of a state starts with.
 * @internal For the GSTIN and transporter id checks; the public look-up is {@link stateFromCode}.
 */
export function stateOfGstinCode(code: string | number): State | undefined {
  const text = twoDigits(code);
  return typeof text === 'string' ? STATE_BY_CODE.get(text) : undefined;
}

/**
 * The GST state code of a state spelled as the spec spells it.
 * @returns The two-digit code, or `undefined` when `state` is not one of `STATES`.
 * @example stateCode('MAHARASHTRA'); // '27'
 */
export function stateCode(state: State): GstStateCode;
export function stateCode(state: string): GstStateCode | undefined;
export function stateCode(state: string): GstStateCode | undefined {
  return Object.hasOwn(STATE_CODES, state) ? STATE_CODES[state as State] : undefined;
}

/**
 * The state (as the spec spells it) of a GST state code. For 38 it is `'LADAKH(NEWLYADDED)'`, the first of the
 * two spellings in `STATES`; for 28 `'ANDHRAPRADESH(BEFOREADDED)'` and for 37 `'ANDHRA PRADESH'`. The codes NIC
 * uses for places outside India, 96 (e-invoice: other country), 97 (other territory) and 99 (e-way bill: other
 * country), are all `'OTHER TERRITORY'`; {@link stateCode} of that state stays `'97'`.
 * @param code Two digits (`'07'`), or a number (`7`).
 * @returns The state, or `undefined` for a code no state has (for example 25, 98).
 * @example stateFromCode('29'); // 'KARNATAKA'
 */
export function stateFromCode(code: string | number): State | undefined {
  const text = twoDigits(code);
  if (typeof text === 'string' && OUTSIDE_INDIA_CODES.has(text)) return 'OTHER TERRITORY';
  return stateOfGstinCode(code);
}
