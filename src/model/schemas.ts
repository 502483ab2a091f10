import * as z from 'zod/mini';
import { SDK_MESSAGES } from '../internal/issue-message.js';
import { COUNTRIES } from './countries.js';
import { isServiceDate } from './date.js';
import {
  SUB_SUPPLY_TYPES,
  SUPPLY_TYPES,
  TRANSACTION_TYPES,
  TRANSACTION_TYPES_REQUIRING_SHIP_TO_GSTIN,
  TRANSPORT_MODES,
  type TransactionType,
  VEHICLE_TYPES,
} from './enums.js';
import type { EwayBillModelFields, OtherTransaction, ShipToTransaction } from './model-types.js';
import { shipToGstinSpecProblem } from './ship-to-gstin.js';
import { STATES } from './states.js';

/**
 * The zod schema of an `EwayBillAddress` (spec, EwayBillAddress): all seven fields required,
 * `addr_id` an integer from 0 to 999999, `state` and `country` from {@link STATES} and {@link COUNTRIES}.
 * Unknown keys are rejected, so a misspelt field name is caught before it is silently dropped.
 */
export const EwayBillAddressSchema = z.strictObject(
  {
    addr_id: z.int(SDK_MESSAGES).check(z.minimum(0), z.maximum(999_999)),
    address_line1: z.string(SDK_MESSAGES),
    address_line2: z.string(SDK_MESSAGES),
    city: z.string(SDK_MESSAGES),
    state: z.enum(STATES, SDK_MESSAGES),
    country: z.enum(COUNTRIES, SDK_MESSAGES),
    // The spec says only "postal code as a string": the portal's PIN rules (6 digits, 999999 abroad, the state's
    // ranges) are preflight rules.
    pincode: z.string(SDK_MESSAGES),
  },
  SDK_MESSAGES,
);

export type { EwayBillAddress } from './model-types.js';

const optionalText = z.optional(z.string(SDK_MESSAGES));

/**
 * `ship_to_gstin`: `'URP'` (an unregistered consignee) or a 15-character upper-case alphanumeric identifier, as the
 * spec says. Its layout, state code and check character are the portal's rules: preflight checks them (rule
 * `ship-to-gstin`), so NIC's sandbox GSTINs and registrations of every kind can still be sent.
 */
const ShipToGstinSchema = z.string(SDK_MESSAGES).check(
  z.superRefine((value, ctx) => {
    const problem = shipToGstinSpecProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  }),
);

/**
 * The object part of the model; the cross-field rules are added in {@link EwayBillModelSchema}. Exported for the type
 * test that proves the documented interfaces identical to its output; not public.
 */
export const EwayBillModelObjectSchema = z.strictObject(
  {
    supply_type: z.enum(SUPPLY_TYPES, SDK_MESSAGES),
    sub_supply_type: z.enum(SUB_SUPPLY_TYPES, SDK_MESSAGES),
    transporter_doc_date: z
      .string(SDK_MESSAGES)
      .check(z.refine(isServiceDate, { error: 'Expected a real calendar date written DD-MM-YYYY' })),
    dispatch_from: EwayBillAddressSchema,
    dispatch_to: EwayBillAddressSchema,
    transport_mode: z.enum(TRANSPORT_MODES, SDK_MESSAGES),
    vehicle_type: z.optional(z.enum(VEHICLE_TYPES, SDK_MESSAGES)),
    transaction_type: z.optional(z.enum(TRANSACTION_TYPES, SDK_MESSAGES)),
    ship_to_gstin: z.optional(ShipToGstinSchema),
    sub_supply_type_description: optionalText,
    transporter_id: optionalText,
    transporter_name: optionalText,
    vehicle_number: optionalText,
    transporter_doc_number: optionalText,
  },
  SDK_MESSAGES,
);

/**
 * The body of "create e-way bill" (spec, EwayBillModel).
 *
 * `ship_to_gstin` (the consignee's GSTIN, or `'URP'` when unregistered) is required by the type
 * when `transaction_type` is `'Bill To - Ship To'` or `'Combination of 2 and 3'`.
 */
export type EwayBillModel = EwayBillModelFields & (ShipToTransaction | OtherTransaction);

const requiresShipToGstin = (type: TransactionType | undefined): boolean =>
  (TRANSACTION_TYPES_REQUIRING_SHIP_TO_GSTIN as readonly string[]).includes(type ?? '');

/**
 * Rule 4 of {@link EwayBillModelSchema}, its one issue beyond the object schema: `ship_to_gstin` absent where the
 * transaction type requires it. Only when absent: a value that is given but wrong (an empty string, null) already has
 * its own issue.
 */
export function shipToGstinMissing(model: {
  readonly transaction_type?: TransactionType | undefined;
  readonly ship_to_gstin?: string | undefined;
}): boolean {
  return requiresShipToGstin(model.transaction_type) && model.ship_to_gstin === undefined;
}

/**
 * The zod schema of an {@link EwayBillModel}: every field rule of the spec, plus rule 4
 * (`ship_to_gstin` required for `Bill To - Ship To` and `Combination of 2 and 3`).
 * The client runs it before every request; use it yourself to check ERP data early.
 */
export const EwayBillModelSchema: z.ZodMiniType<EwayBillModel> = EwayBillModelObjectSchema.check(
  z.superRefine(
    (model, ctx) => {
      if (shipToGstinMissing(model)) {
        ctx.addIssue({
          code: 'custom',
          path: ['ship_to_gstin'],
          message: `Required when transaction_type is '${model.transaction_type}' (a GSTIN, or 'URP' for an unregistered consignee)`,
        });
      }
    },
    // Also run when other fields failed, so every problem is listed at once (zod skips refinements otherwise).
    { when: ({ value }) => typeof value === 'object' && value !== null },
  ),
) as z.ZodMiniType<EwayBillModel>;
