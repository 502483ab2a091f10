import {
  type EwayBillAddress,
  type EwayBillModel,
  formatServiceDate,
  TRANSACTION_TYPES_REQUIRING_SHIP_TO_GSTIN,
  type TransactionType,
} from '../model/index.js';

/** Overrides of {@link buildEwayBillModel}: any field; the two addresses may be overridden field by field. */
export type EwayBillModelOverrides = Omit<
  Partial<EwayBillModel>,
  'dispatch_from' | 'dispatch_to' | 'transaction_type' | 'ship_to_gstin'
> & {
  transaction_type?: TransactionType | undefined;
  ship_to_gstin?: string | undefined;
  dispatch_from?: Partial<EwayBillAddress> | undefined;
  dispatch_to?: Partial<EwayBillAddress> | undefined;
};

/** The consignee GSTIN the fixture fills in when the transaction type needs one (West Bengal, valid check character). */
export const FIXTURE_SHIP_TO_GSTIN = '19AAPFU0939F1ZS';

/**
 * An `EwayBillModel` that satisfies every rule of the spec (it parses with `EwayBillModelSchema`): an outward supply
 * by road from Pune to Kolkata, dated today (India time). Override any field; addresses merge field by field.
 *
 * When `transaction_type` needs `ship_to_gstin` (`Bill To - Ship To`, `Combination of 2 and 3`) and the overrides do
 * not name `ship_to_gstin`, a valid GSTIN is filled in. Name it (even as `undefined`) to build an invalid model on purpose.
 *
 * @example
 * const model = buildEwayBillModel({ transport_mode: 'Rail', dispatch_to: { city: 'Chennai', state: 'TAMIL NADU', pincode: '600001' } });
 */
export function buildEwayBillModel(overrides: EwayBillModelOverrides = {}): EwayBillModel {
  const { dispatch_from, dispatch_to, ...rest } = overrides;
  const model: Record<string, unknown> = {
    supply_type: 'Outward',
    sub_supply_type: 'Supply',
    transporter_doc_date: formatServiceDate(new Date()),
    transport_mode: 'Road',
    vehicle_type: 'Regular',
    vehicle_number: 'MH12AB1234',
    transporter_name: 'Deccan Roadways',
    transporter_doc_number: 'LR-1001',
    ...rest,
    dispatch_from: {
      addr_id: 1,
      address_line1: '12 MG Road',
      address_line2: 'Camp',
      city: 'Pune',
      state: 'MAHARASHTRA',
      country: 'India',
      pincode: '411001',
      ...dispatch_from,
    },
    dispatch_to: {
      addr_id: 2,
      address_line1: '4 Park Street',
      address_line2: 'Park Circus',
      city: 'Kolkata',
      state: 'WEST BENGAL',
      country: 'India',
      pincode: '700016',
      ...dispatch_to,
    },
  };
  const needsGstin = (TRANSACTION_TYPES_REQUIRING_SHIP_TO_GSTIN as readonly unknown[]).includes(model.transaction_type);
  if (needsGstin && !('ship_to_gstin' in overrides)) model.ship_to_gstin = FIXTURE_SHIP_TO_GSTIN;
  return model as EwayBillModel;
}
