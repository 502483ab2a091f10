// The service's flow, end to end: create the document, generate its e-way bill, receive its webhook event. One
// client, one key, one rate-limit budget: the calls go out a second apart. Run it against the mock:
//   npx invoicing-service-sdk mock-server --port 4010 --webhook-url http://127.0.0.1:3000/webhooks
// The shapes of POST /v2/doc and GET /v2/product/list are not in the spec: the mock's are its assumptions
// (docs/testing.md), so the answers are checked with a schema rather than trusted.
import { ServiceClient } from 'invoicing-service-sdk';
import { buildEwayBillModel } from 'invoicing-service-sdk/testing';
import { z } from 'zod';

const CreatedDocument = z.object({ hash_id: z.string().min(1) });
const ProductList = z.object({ products: z.array(z.object({ product_name: z.string() }).loose()) }).loose();

/** Creates an invoice, generates its e-way bill and lists the products; resolves with what it got. */
export async function createDocumentFirst(client: ServiceClient) {
  const document = await client.request('POST', '/v2/doc', {
    body: { document_type: 'invoice', serial_number: 'INV-2026-0042' },
    schema: CreatedDocument,
  });
  const bill = await client.createEwayBill(document.hash_id, buildEwayBillModel());
  const { products } = await client.request('GET', '/v2/product/list', { schema: ProductList });
  // `lastResponse` (status, headers, request id, attempts) is on every object answer, and in its type.
  const documentRequestId = document.lastResponse.requestId;
  return {
    hashId: document.hash_id,
    documentRequestId,
    ewayBillNumber: bill.ewayBillNumber,
    products: products.length,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await createDocumentFirst(new ServiceClient()); // SERVICE_API_KEY and SERVICE_BASE_URL
  console.log(result);
}
