import type { EwayBillAddress, EwayBillModel } from 'invoicing-service-sdk';
import { describe, expectTypeOf, it } from 'vitest';
import type * as z from 'zod/mini';
import type { EwayBillModelFields, OtherTransaction, ShipToTransaction } from '../../src/model/model-types.js';
import type { EwayBillAddressSchema, EwayBillModelObjectSchema } from '../../src/model/schemas.js';

type SchemaModel = z.output<typeof EwayBillModelObjectSchema>;
type Pair = 'transaction_type' | 'ship_to_gstin';

describe('the documented model types are the schemas’ output', () => {
  it('makes EwayBillAddress identical to the address schema’s output', () => {
    expectTypeOf<EwayBillAddress>().toEqualTypeOf<z.output<typeof EwayBillAddressSchema>>();
  });

  it('makes the model’s fields identical to the model schema’s output', () => {
    expectTypeOf<EwayBillModelFields>().toEqualTypeOf<Omit<SchemaModel, Pair>>();
    expectTypeOf<EwayBillModel['dispatch_from']>().toEqualTypeOf<SchemaModel['dispatch_from']>();
  });

  it('splits transaction_type and ship_to_gstin into the two cases of rule 4, covering the schema’s values', () => {
    type Types = ShipToTransaction['transaction_type'] | NonNullable<OtherTransaction['transaction_type']>;
    expectTypeOf<Types>().toEqualTypeOf<NonNullable<SchemaModel['transaction_type']>>();
    expectTypeOf<ShipToTransaction['ship_to_gstin']>().toEqualTypeOf<NonNullable<SchemaModel['ship_to_gstin']>>();
    expectTypeOf<EwayBillModel>().toEqualTypeOf<EwayBillModelFields & (ShipToTransaction | OtherTransaction)>();
  });

  it('still lets a model be treated as a plain record', () => {
    expectTypeOf<EwayBillModel>().toExtend<Record<string, unknown>>();
    expectTypeOf<EwayBillAddress>().toExtend<Record<string, unknown>>();
  });
});
