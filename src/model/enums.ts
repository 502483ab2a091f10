// The closed lists of the EwayBillModel, spelled exactly as the spec spells them.
// Each list lives here once; the union types and the zod schemas derive from it.

/** Values of `EwayBillModel.supply_type`. */
export const SUPPLY_TYPES = ['Outward', 'Inward'] as const;
/** A value of {@link SUPPLY_TYPES}. */
export type SupplyType = (typeof SUPPLY_TYPES)[number];

/** Values of `EwayBillModel.sub_supply_type`. */
export const SUB_SUPPLY_TYPES = [
  'Supply',
  'Export',
  'Job Work',
  'SKD/CKD/Lots',
  'Recipient Not Known',
  'For Own Use',
  'Job Work Returns',
  'Sales Returns',
  'Exhibition or fairs',
  'Line Sales',
  'Others',
] as const;
/** A value of {@link SUB_SUPPLY_TYPES}. */
export type SubSupplyType = (typeof SUB_SUPPLY_TYPES)[number];

/** Values of `EwayBillModel.transport_mode`. */
export const TRANSPORT_MODES = ['Road', 'Rail', 'Air', 'Ship or Ship Cum Road/Rail'] as const;
/** A value of {@link TRANSPORT_MODES}. */
export type TransportMode = (typeof TRANSPORT_MODES)[number];

/** Values of `EwayBillModel.vehicle_type`. */
export const VEHICLE_TYPES = ['Regular', 'Over Dimensional Cargo'] as const;
/** A value of {@link VEHICLE_TYPES}. */
export type VehicleType = (typeof VEHICLE_TYPES)[number];

/** Values of `EwayBillModel.transaction_type`. */
export const TRANSACTION_TYPES = [
  'Regular',
  'Bill To - Ship To',
  'Bill From - Dispatch From',
  'Combination of 2 and 3',
] as const;
/** A value of {@link TRANSACTION_TYPES}. */
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** The transaction types for which the spec requires `ship_to_gstin` (spec, Create e-way bill, rule 4). */
export const TRANSACTION_TYPES_REQUIRING_SHIP_TO_GSTIN = ['Bill To - Ship To', 'Combination of 2 and 3'] as const;
/** A value of {@link TRANSACTION_TYPES_REQUIRING_SHIP_TO_GSTIN}. */
export type ShipToTransactionType = (typeof TRANSACTION_TYPES_REQUIRING_SHIP_TO_GSTIN)[number];
