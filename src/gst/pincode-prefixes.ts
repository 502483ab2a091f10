import type { State } from '../model/states.js';

/*
 * The first three digits of Indian PIN codes per state: ranges, both ends included.
 * Source: src/gst/data/pincode-state-prefixes.json, a copy of the project's shared data, which reads:
 * "Ranges of the first three digits of Indian PIN codes per state, as encoded by a widely deployed GST application
 * (resilient-tech/india-compliance, india_compliance/gst_india/constants/__init__.py, STATE_PINCODE_MAPPING, commit
 * c7d0a82). Telangana (500-509) and Ladakh (194) are not in that table and were added from India Post's PIN zoning;
 * ANDHRAPRADESH(BEFOREADDED) covers the undivided state."
 * Ranges overlap on purpose (Goa 403 inside Maharashtra's 400-445, Chandigarh 160 inside Punjab's, Lakshadweep 682
 * inside Kerala's): a PIN fits a state when its prefix falls in ANY range of that state. OTHER TERRITORY has none.
 * test/gst/pincode-prefixes.test.ts keeps this table equal to the JSON.
 */
export const PINCODE_PREFIXES: Readonly<Partial<Record<State, readonly (readonly [number, number])[]>>> = {
  'JAMMU AND KASHMIR': [[180, 194]],
  'HIMACHAL PRADESH': [[171, 177]],
  PUNJAB: [[140, 160]],
  CHANDIGARH: [[160, 160]],
  UTTARAKHAND: [[244, 263]],
  HARYANA: [[121, 136]],
  DELHI: [[110, 110]],
  RAJASTHAN: [[301, 345]],
  'UTTAR PRADESH': [[201, 285]],
  BIHAR: [[800, 855]],
  SIKKIM: [[737, 737]],
  'ARUNACHAL PRADESH': [[790, 792]],
  NAGALAND: [[797, 798]],
  MANIPUR: [[795, 795]],
  MIZORAM: [[796, 796]],
  TRIPURA: [[799, 799]],
  MEGHALAYA: [[793, 794]],
  ASSAM: [[781, 788]],
  'WEST BENGAL': [[700, 743]],
  JHARKHAND: [[813, 835]],
  ODISHA: [[751, 770]],
  CHHATTISGARH: [[490, 497]],
  'MADHYA PRADESH': [[450, 488]],
  GUJARAT: [[360, 396]],
  'DADRA & NAGAR HAVELI & DAMAN & DIU': [
    [362, 362],
    [396, 396],
  ],
  MAHARASHTRA: [[400, 445]],
  KARNATAKA: [[560, 591]],
  GOA: [[403, 403]],
  LAKSHWADEEP: [[682, 682]],
  KERALA: [[670, 695]],
  'TAMIL NADU': [[600, 643]],
  PUDUCHERRY: [
    [533, 533],
    [605, 605],
    [607, 607],
    [609, 609],
    [673, 673],
  ],
  'ANDAMAN & NICOBAR': [[744, 744]],
  'ANDHRA PRADESH': [[500, 535]],
  TELANGANA: [[500, 509]],
  'ANDHRAPRADESH(BEFOREADDED)': [[500, 535]],
  'LADAKH(NEWLYADDED)': [[194, 194]],
  'LADAKH(NEWLY ADDED)': [[194, 194]],
};
