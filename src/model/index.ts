/**
 * The e-way bill model: the spec's lists of allowed values (states, countries, supply types, ...), the zod/mini
 * schemas, the field types, and the `DD-MM-YYYY` date helpers. `EwayBillModel` and `EwayBillAddress` are also in the
 * root entry.
 *
 * @module invoicing-service-sdk/model
 */

// The model's public names: the spec's lists, schemas and types, and the date helpers. The root re-exports exactly
// these; the testing kit imports them from here rather than from the model's files.
export type { Country } from './countries.js';
export { COUNTRIES } from './countries.js';
export { formatServiceDate, isServiceDate } from './date.js';
export type {
  ShipToTransactionType,
  SubSupplyType,
  SupplyType,
  TransactionType,
  TransportMode,
  VehicleType,
} from './enums.js';
export {
  SUB_SUPPLY_TYPES,
  SUPPLY_TYPES,
  TRANSACTION_TYPES,
  TRANSACTION_TYPES_REQUIRING_SHIP_TO_GSTIN,
  TRANSPORT_MODES,
  VEHICLE_TYPES,
} from './enums.js';
export type { EwayBillModelFields, OtherTransaction, ShipToTransaction } from './model-types.js';
export type { EwayBillAddress, EwayBillModel } from './schemas.js';
export { EwayBillAddressSchema, EwayBillModelSchema } from './schemas.js';
export type { State } from './states.js';
export { STATES } from './states.js';
