import type { EwayBillModel } from 'invoicing-service-sdk';
import { buildEwayBillModel, type EwayBillModelOverrides } from 'invoicing-service-sdk/testing';

/**
 * A model that satisfies every rule of the spec: the testing kit's fixture (Pune to Kolkata by road), trimmed to the
 * required fields and a vehicle number, so tests state every optional field they depend on.
 */
export function validModel(overrides: Partial<EwayBillModel> = {}): EwayBillModel {
  const trimmed = {
    vehicle_type: undefined,
    transporter_name: undefined,
    transporter_doc_number: undefined,
    ship_to_gstin: undefined,
  };
  const model = buildEwayBillModel({ ...trimmed, ...overrides } as EwayBillModelOverrides);
  return Object.fromEntries(Object.entries(model).filter(([, value]) => value !== undefined)) as EwayBillModel;
}

let counter = 0;
/** A fresh API key per test, so tests never share a rate-limit queue. */
export function freshKey(label = 'test'): string {
  counter += 1;
  return `sk_${label}_${process.pid}_${counter}_${Math.random().toString(36).slice(2)}`;
}
