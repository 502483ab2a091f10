// Creates an e-way bill and handles every kind of failure.
// Run it against the local mock of the service: in one terminal `npx invoicing-service-sdk mock-server --port 4010`,
// then, in this repository after `npm run build`, paste the `export ...` line it prints and run
//   npx node examples/create-eway-bill.ts doc_demo_0001
import {
  ApiError,
  ConnectionError,
  type EwayBillModel,
  PortalError,
  RateLimitError,
  ServiceClient,
  TimeoutError,
  UnauthorizedError,
  ValidationError,
} from 'invoicing-service-sdk';
import { formatServiceDate } from 'invoicing-service-sdk/model';

const client = new ServiceClient(); // reads SERVICE_API_KEY and SERVICE_BASE_URL

const model: EwayBillModel = {
  supply_type: 'Outward',
  sub_supply_type: 'Supply',
  transporter_doc_date: formatServiceDate(new Date()),
  transport_mode: 'Road',
  vehicle_number: 'MH12AB1234',
  transaction_type: 'Bill To - Ship To',
  ship_to_gstin: 'URP', // required for this transaction type: the compiler says so
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
};

const docHashId = process.argv[2] ?? 'doc_demo_0001';

try {
  const { message } = await client.createEwayBill(docHashId, model);
  console.log('Generated:', message);
} catch (error) {
  if (error instanceof ValidationError) {
    for (const issue of error.issues) console.error(`fix ${issue.field}: ${issue.message}`);
  } else if (error instanceof PortalError) {
    console.error(`The portal refused (code ${error.portalCode}): ${error.message}`);
  } else if (error instanceof UnauthorizedError) {
    console.error('The API key is invalid or was regenerated: update SERVICE_API_KEY.');
  } else if (error instanceof RateLimitError) {
    console.error(`Rate limited; retry after ${error.retryAfter ?? 'a few'} seconds.`);
  } else if (error instanceof TimeoutError || error instanceof ConnectionError) {
    // The bill may exist: retrying blindly could generate a second one. Check, or retry and treat 604 as done.
    console.error(`No answer (${error.code}); may have succeeded: ${error.mayHaveSucceeded}`);
  } else if (error instanceof ApiError) {
    console.error(`Service error ${error.status} ${error.errorCode ?? ''}: ${error.message}`);
  } else {
    throw error;
  }
  process.exitCode = 1;
}
