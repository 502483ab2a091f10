/**
 * Every value the service accepts in `EwayBillAddress.state`, spelled exactly as the spec spells it
 * (including both spellings of Ladakh and of Andhra Pradesh). `OTHER TERRITORY` is for addresses outside India.
 *
 * This array is the single source: the {@link State} type and the zod schema derive from it.
 */
export const STATES = [
  'JAMMU AND KASHMIR',
  'HIMACHAL PRADESH',
  'PUNJAB',
  'CHANDIGARH',
  'UTTARAKHAND',
  'HARYANA',
  'DELHI',
  'RAJASTHAN',
  'UTTAR PRADESH',
  'BIHAR',
  'SIKKIM',
  'ARUNACHAL PRADESH',
  'NAGALAND',
  'MANIPUR',
  'MIZORAM',
  'TRIPURA',
  'MEGHALAYA',
  'ASSAM',
  'WEST BENGAL',
  'JHARKHAND',
  'ODISHA',
  'CHHATTISGARH',
  'MADHYA PRADESH',
  'GUJARAT',
  'DADRA & NAGAR HAVELI & DAMAN & DIU',
  'MAHARASHTRA',
  'ANDHRAPRADESH(BEFOREADDED)',
  'KARNATAKA',
  'GOA',
  'LAKSHWADEEP',
  'KERALA',
  'TAMIL NADU',
  'PUDUCHERRY',
  'ANDAMAN & NICOBAR',
  'TELANGANA',
  'ANDHRA PRADESH',
  'LADAKH(NEWLYADDED)',
  'LADAKH(NEWLY ADDED)',
  'OTHER TERRITORY',
] as const;

/** A value of {@link STATES}. */
export type State = (typeof STATES)[number];
