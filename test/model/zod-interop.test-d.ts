import type { EwayBillAddress, EwayBillModel } from 'invoicing-service-sdk';
import { EwayBillAddressSchema, EwayBillModelSchema } from 'invoicing-service-sdk/model';
import { DocumentEventDataSchema, WebhookEnvelopeSchema } from 'invoicing-service-sdk/webhooks';
import { describe, expectTypeOf, it } from 'vitest';
import * as z from 'zod';

// The SDK's schemas are zod/mini schemas; a user's classic zod must take them and infer the SDK's documented types.

describe("the SDK's schemas in a user's classic zod, by type", () => {
  const Shipment = z.object({
    model: EwayBillModelSchema,
    alternates: z.array(EwayBillAddressSchema),
    note: z.string().optional(),
  });

  it('infer the documented model and address types inside a classic object', () => {
    type Shipment = z.infer<typeof Shipment>;
    expectTypeOf<Shipment['model']>().toEqualTypeOf<EwayBillModel>();
    expectTypeOf<Shipment['alternates']>().toEqualTypeOf<EwayBillAddress[]>();
    expectTypeOf(Shipment.parse({})).toEqualTypeOf<Shipment>();
  });

  it('give .parse and .safeParse the documented types when used directly', () => {
    expectTypeOf(EwayBillModelSchema.parse({})).toEqualTypeOf<EwayBillModel>();
    expectTypeOf(EwayBillAddressSchema.parse({})).toEqualTypeOf<EwayBillAddress>();
    const parsed = EwayBillModelSchema.safeParse({});
    if (parsed.success) expectTypeOf(parsed.data).toEqualTypeOf<EwayBillModel>();
  });

  it('let the address shape be spread into a classic object', () => {
    const Extended = z.object({ ...EwayBillAddressSchema.shape, landmark: z.string() });
    type Extended = z.infer<typeof Extended>;
    expectTypeOf<Omit<Extended, 'landmark'>>().toEqualTypeOf<Omit<EwayBillAddress, never>>();
    expectTypeOf<Extended['landmark']>().toEqualTypeOf<string>();
  });

  it('keep the event schemas usable in classic arrays and unions', () => {
    const Events = z.array(DocumentEventDataSchema);
    expectTypeOf<z.infer<typeof Events>[number]['hash_id']>().toEqualTypeOf<string>();
    const Incoming = z.union([WebhookEnvelopeSchema, z.literal('ping')]);
    expectTypeOf<z.infer<typeof Incoming>>().toExtend<'ping' | { event_id: string; event_type: string }>();
  });

  it('are not classic schemas: the method forms are gone, the function forms remain', () => {
    // @ts-expect-error zod/mini schemas have no .optional(): write z.optional(EwayBillModelSchema) or classic .optional() around it.
    EwayBillModelSchema.optional();
    expectTypeOf(z.optional(EwayBillModelSchema).parse(undefined)).toEqualTypeOf<EwayBillModel | undefined>();
  });
});
