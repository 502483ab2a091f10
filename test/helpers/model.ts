import type { EwayBillModel } from 'invoicing-service-sdk';

/** A model that satisfies every rule of the spec. */
export function validModel(overrides: Partial<EwayBillModel> = {}): EwayBillModel {
  return {
    supply_type: 'Outward',
    sub_supply_type: 'Supply',
    transporter_doc_date: '21-11-2026',
    transport_mode: 'Road',
    vehicle_number: 'MH12AB1234',
    dispatch_from: {
      addr_id: 1,
      address_line1: '12 MG Road',
      address_line2: 'Camp',
      city: 'Pune',
      state: 'MAHARASHTRA',
      country: 'India',
      pincode: '411001',
    },
    dispatch_to: {
      addr_id: 2,
      address_line1: '4 Park Street',
      address_line2: '',
      city: 'Kolkata',
      state: 'WEST BENGAL',
      country: 'India',
      pincode: '700016',
    },
    ...overrides,
  } as EwayBillModel;
}

let counter = 0;
/** A fresh API key per test, so tests never share a rate-limit queue. */
export function freshKey(label = 'test'): string {
  counter += 1;
  return `sk_${label}_${process.pid}_${counter}_${Math.random().toString(36).slice(2)}`;
}
