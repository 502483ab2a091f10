// The model as object types with documented fields, so editor hovers show what each field is and what the portal
// does with it. test/model/schema-types.test-d.ts proves them identical to the zod schemas' output.
// Type aliases, not interfaces: an interface has no implicit index signature, so code that treats a model as a
// Record<string, unknown> (a cast, a generic helper) would stop compiling.
import type { Country } from './countries.js';
import type {
  ShipToTransactionType,
  SubSupplyType,
  SupplyType,
  TransactionType,
  TransportMode,
  VehicleType,
} from './enums.js';
import type { State } from './states.js';

/** An address of an e-way bill (spec, EwayBillAddress). All seven fields are required. */
export type EwayBillAddress = {
  /**
   * The address's id in the service: an integer from 0 to 999999. An address with this id that already exists is
   * updated with these fields (spec, rule 5).
   * @example 1
   */
  addr_id: number;
  /** The first line of the address: any text. @example '12 MG Road' */
  address_line1: string;
  /** The second line of the address: any text, `''` when there is none. @example 'Camp' */
  address_line2: string;
  /** The city or town: any text. @example 'Pune' */
  city: string;
  /**
   * The state, spelled exactly as the spec spells it (upper case, `&`, both spellings of Ladakh and Andhra Pradesh);
   * `'OTHER TERRITORY'` for an address outside India. The portal checks it against the PIN code (portal 437, 436,
   * 710; preflight rule `pincode-state`).
   * @example 'MAHARASHTRA'
   */
  state: State;
  /**
   * The country, spelled exactly as the spec spells it. A foreign address has state `'OTHER TERRITORY'` and PIN code
   * `'999999'` at the portal (preflight rules `country-state`, `export-dispatch-to`).
   * @example 'India'
   */
  country: Country;
  /**
   * The postal code, as a string (the spec says no more). The portal wants 6 digits not starting with 0 for India
   * (portal 210, 214), in the state's range (437, 436), and `'999999'` abroad (374, 376): preflight checks these.
   * @example '411001'
   */
  pincode: string;
};

/** The fields of an {@link EwayBillModel} other than `transaction_type` and `ship_to_gstin`. */
export type EwayBillModelFields = {
  /** Whether the goods go out (`'Outward'`, a sale) or come in (`'Inward'`, a purchase). @example 'Outward' */
  supply_type: SupplyType;
  /**
   * The kind of supply. Some go with one supply type only (portal 202; preflight rule `supply-sub-supply`):
   * `Export`, `Job Work`, `Line Sales`, `Recipient Not Known` are outward; `Sales Returns`, `Job Work Returns` inward.
   * `'Others'` needs `sub_supply_type_description` (portal 377).
   * @example 'Supply'
   */
  sub_supply_type: SubSupplyType;
  /**
   * The date of the transporter's document, `DD-MM-YYYY`, a real calendar date (the spec's only date format).
   * `formatServiceDate(new Date())` gives today in India.
   * @example '21-11-2026'
   */
  transporter_doc_date: string;
  /**
   * Where the goods are dispatched from: an {@link EwayBillAddress}, all seven fields. The portal checks its PIN code
   * against its state (portal 437).
   * @example
   * { addr_id: 1, address_line1: '12 MG Road', address_line2: 'Camp', city: 'Pune', state: 'MAHARASHTRA',
   *   country: 'India', pincode: '411001' }
   */
  dispatch_from: EwayBillAddress;
  /**
   * Where the goods are delivered to: an {@link EwayBillAddress}, all seven fields. The portal checks its PIN code
   * against its state (portal 436, 858).
   * @example
   * { addr_id: 2, address_line1: '45 Residency Road', address_line2: '', city: 'Bengaluru', state: 'KARNATAKA',
   *   country: 'India', pincode: '560025' }
   */
  dispatch_to: EwayBillAddress;
  /**
   * How the goods move. `'Road'` needs a `vehicle_number` or a `transporter_id` (portal 619); the others need a
   * `transporter_doc_number` (portal 394).
   * @example 'Road'
   */
  transport_mode: TransportMode;
  /**
   * The vehicle's type, optional. `'Over Dimensional Cargo'` moves by `'Road'` only (portal 634).
   * @example 'Regular'
   */
  vehicle_type?: VehicleType | undefined;
  /**
   * A description of the sub supply type: any text, optional; the portal requires it for `'Others'` (portal 377).
   * @example 'Samples for testing'
   */
  sub_supply_type_description?: string | undefined;
  /**
   * The transporter's GSTIN, TRANSIN or common enrolment number (starting with 88), optional. The portal refuses
   * other values (portal 222); `checkTransporterId` says which it is.
   * @example '29AAGCB7383J1Z4'
   */
  transporter_id?: string | undefined;
  /** The transporter's name: any text, optional. @example 'Deccan Roadways' */
  transporter_name?: string | undefined;
  /**
   * The vehicle's registration number, optional, sent as written: the portal wants upper case without spaces or
   * hyphens (portal 225, 355); `normalizeVehicleNumber` gives that spelling.
   * @example 'MH12AB1234'
   */
  vehicle_number?: string | undefined;
  /**
   * The transporter's document number (lorry receipt, railway receipt, airway bill, bill of lading): any text,
   * optional; the portal requires it for transport other than `'Road'` (portal 394).
   * @example 'LR-1001'
   */
  transporter_doc_number?: string | undefined;
};

/** `transaction_type` and `ship_to_gstin` when the spec requires `ship_to_gstin` (spec, rule 4). */
export type ShipToTransaction = {
  /**
   * `'Bill To - Ship To'` or `'Combination of 2 and 3'`: the goods go to a consignee other than the buyer, so
   * `ship_to_gstin` is required (spec, rule 4).
   * @example 'Bill To - Ship To'
   */
  transaction_type: ShipToTransactionType;
  /**
   * The consignee's GSTIN, or `'URP'` for an unregistered consignee: `'URP'` or 15 upper-case letters and digits
   * (spec). The portal also checks its layout, state code and check character (portal 609; preflight rule
   * `ship-to-gstin`, which names NIC's sandbox GSTINs as such).
   * @example '27AAPFU0939F1ZV'
   */
  ship_to_gstin: string;
};

/** `transaction_type` and `ship_to_gstin` for the other transaction types, where `ship_to_gstin` is optional. */
export type OtherTransaction = {
  /**
   * The transaction type, optional: `'Regular'` or `'Bill From - Dispatch From'` here (the spec does not show the
   * default).
   * @example 'Regular'
   */
  transaction_type?: Exclude<TransactionType, ShipToTransactionType> | undefined;
  /**
   * `'URP'` or 15 upper-case letters and digits (spec). The portal refuses it with `'Regular'` (portal 616) and
   * `'Bill From - Dispatch From'` (portal 864): preflight rule `ship-to-transaction-type`. Leave it out with these
   * transaction types; no example, since any value is refused.
   */
  ship_to_gstin?: string | undefined;
};
