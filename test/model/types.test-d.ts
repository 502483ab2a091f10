import type {
  EwayBillAddress,
  EwayBillModel,
  EwayBillOnceResult,
  EwayBillResult,
  ResponseMeta,
  ServiceClient,
} from 'invoicing-service-sdk';
import type {
  Country,
  State,
  SubSupplyType,
  SupplyType,
  TransactionType,
  TransportMode,
  VehicleType,
} from 'invoicing-service-sdk/model';
import { EwayBillModelSchema } from 'invoicing-service-sdk/model';
import { describe, expectTypeOf, it } from 'vitest';

const address: EwayBillAddress = {
  addr_id: 1,
  address_line1: '1 Main Road',
  address_line2: '',
  city: 'Delhi',
  state: 'DELHI',
  country: 'India',
  pincode: '110001',
};

const base = {
  supply_type: 'Outward',
  sub_supply_type: 'Supply',
  transporter_doc_date: '21-11-2026',
  transport_mode: 'Road',
  dispatch_from: address,
  dispatch_to: address,
} as const;

describe('the spec unions', () => {
  it('are exact string-literal unions', () => {
    expectTypeOf<SupplyType>().toEqualTypeOf<'Outward' | 'Inward'>();
    expectTypeOf<TransportMode>().toEqualTypeOf<'Road' | 'Rail' | 'Air' | 'Ship or Ship Cum Road/Rail'>();
    expectTypeOf<VehicleType>().toEqualTypeOf<'Regular' | 'Over Dimensional Cargo'>();
    expectTypeOf<TransactionType>().toEqualTypeOf<
      'Regular' | 'Bill To - Ship To' | 'Bill From - Dispatch From' | 'Combination of 2 and 3'
    >();
    expectTypeOf<'SKD/CKD/Lots'>().toExtend<SubSupplyType>();
    expectTypeOf<'LADAKH(NEWLY ADDED)'>().toExtend<State>();
    expectTypeOf<'Congo, Republic of the'>().toExtend<Country>();
  });

  it('reject wrong spellings', () => {
    // @ts-expect-error: the spec spells it 'DELHI'
    const state: State = 'Delhi';
    // @ts-expect-error: the spec spells it 'United States'
    const country: Country = 'USA';
    // @ts-expect-error: the spec spells it 'Road'
    const mode: TransportMode = 'road';
    expectTypeOf(state).toBeString();
    expectTypeOf(country).toBeString();
    expectTypeOf(mode).toBeString();
  });

  it('reject a string addr_id', () => {
    // @ts-expect-error: addr_id is a number
    const bad: EwayBillAddress = { ...address, addr_id: '1' };
    expectTypeOf(bad.addr_id).toBeNumber();
  });
});

describe('the conditional ship_to_gstin', () => {
  it('is required for Bill To - Ship To and Combination of 2 and 3', () => {
    // @ts-expect-error: ship_to_gstin is required for 'Bill To - Ship To'
    const a: EwayBillModel = { ...base, transaction_type: 'Bill To - Ship To' };
    // @ts-expect-error: ship_to_gstin is required for 'Combination of 2 and 3'
    const b: EwayBillModel = { ...base, transaction_type: 'Combination of 2 and 3' };
    const ok: EwayBillModel = { ...base, transaction_type: 'Bill To - Ship To', ship_to_gstin: 'URP' };
    expectTypeOf(a).toEqualTypeOf(b);
    expectTypeOf(ok).toExtend<EwayBillModel>();
  });

  it('is optional otherwise', () => {
    const regular: EwayBillModel = { ...base, transaction_type: 'Regular' };
    const none: EwayBillModel = { ...base };
    expectTypeOf(regular).toExtend<EwayBillModel>();
    expectTypeOf(none).toExtend<EwayBillModel>();
  });
});

describe('the client and schema types', () => {
  it('createEwayBill takes an EwayBillModel and resolves to the success answer', () => {
    type Meta = {
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly requestId: string | undefined;
      readonly attempts: number;
    };
    expectTypeOf<ServiceClient['createEwayBill']>().parameter(1).toEqualTypeOf<EwayBillModel>();
    type Result = Awaited<ReturnType<ServiceClient['createEwayBill']>>;
    type Answered = Exclude<Result, { fromJournal: true }>;
    type FromJournal = Extract<Result, { fromJournal: true }>;
    // Two kinds with the same answer fields: answered by the service (with its lastResponse), or by the journal (no
    // request, no lastResponse).
    type Fields = {
      readonly success: true;
      readonly message: string;
      readonly ewayBillNumber?: string;
      readonly outcome?: 'generated' | 'already-generated';
      readonly bodyChanged?: true;
    };
    expectTypeOf<Omit<Answered, 'fromJournal' | 'lastResponse'>>().toEqualTypeOf<Fields>();
    expectTypeOf<Omit<FromJournal, 'fromJournal' | 'lastResponse'>>().toEqualTypeOf<Fields>();
    expectTypeOf<Pick<Answered, 'fromJournal' | 'lastResponse'>>().toEqualTypeOf<{
      readonly fromJournal?: undefined;
      readonly lastResponse: Meta;
    }>();
    expectTypeOf<Pick<FromJournal, 'fromJournal' | 'lastResponse'>>().toEqualTypeOf<{
      readonly fromJournal: true;
      readonly lastResponse: undefined;
    }>();
  });

  it('a result from the journal has no lastResponse; testing fromJournal narrows to one that has it', () => {
    const bill = {} as Awaited<ReturnType<ServiceClient['createEwayBill']>>;
    expectTypeOf(bill.lastResponse).toEqualTypeOf<ResponseMeta | undefined>();
    expectTypeOf<EwayBillResult>().toEqualTypeOf<typeof bill>();
    // @ts-expect-error: lastResponse is undefined when the journal answered (fromJournal: true)
    bill.lastResponse.status;
    if (bill.fromJournal) expectTypeOf(bill.lastResponse).toBeUndefined();
    else expectTypeOf(bill.lastResponse.status).toBeNumber();
    const once = {} as EwayBillOnceResult;
    // @ts-expect-error: createEwayBillOnce's result may come from the journal too
    once.lastResponse.status;
  });

  it('the schema parses to an EwayBillModel', () => {
    expectTypeOf(EwayBillModelSchema.parse(base)).toEqualTypeOf<EwayBillModel>();
  });
});
