// The service's other endpoints the spec names, `POST /v2/doc` (create a document) and `GET /v2/product/list` (list
// products), as the mock answers them. The spec shows neither's payload: the shapes here are the mock's assumptions
// (docs/testing.md lists them), kept small and generic; the SDK side is `client.request<T>`, which assumes nothing.
import type { DocumentEventData } from '../webhooks/index.js';
import { readBearer } from './api-key.js';
import type { OperationContext } from './create-eway-bill.js';
import type { KeyRecord } from './directory.js';
import { errorAnswer, jsonAnswer, MOCK_ERROR_CODES, type Outcome } from './outcome.js';

/** What the other endpoints need besides the operation context. */
export interface OtherEndpointContext extends OperationContext {
  /** Sends the signed `document` event of a created document (when the mock has a webhook target). */
  readonly documentCreated: (data: Pick<DocumentEventData, 'document_type' | 'serial_number' | 'hash_id'>) => void;
}

/** The mock's products (an assumption: the spec does not show the product list's fields). */
export const MOCK_PRODUCTS: readonly {
  readonly service_product_id: number;
  readonly partner_product_id: string | number;
  readonly product_name: string;
}[] = Object.freeze([
  { service_product_id: 101, partner_product_id: 'SKU-STEEL-12', product_name: 'Steel rod 12 mm' },
  { service_product_id: 102, partner_product_id: 'SKU-CEM-50', product_name: 'Cement bag 50 kg' },
  { service_product_id: 103, partner_product_id: -1, product_name: 'Unmapped sample product' },
]);

/** Authentication and the rate limit, as for every endpoint of a key: the answer to refuse with, or the key. */
function admit(authorization: string | null, receivedAt: number, context: OperationContext): KeyRecord | Outcome {
  const bearer = readBearer(authorization);
  if (bearer.kind === 'missing') return errorAnswer(401, 'UNAUTHORIZED', 'Missing Authorization: Bearer <API key>');
  if (bearer.kind === 'malformed') return errorAnswer(401, 'UNAUTHORIZED', bearer.why);
  const key = context.directory.keyRecord(bearer.token);
  if (!key) return errorAnswer(401, 'UNAUTHORIZED', 'The API key is not valid (unknown, or regenerated since)');
  const rate = context.rateWindow.check(key.keyId, receivedAt);
  if (!rate.allowed) {
    return errorAnswer(
      429,
      MOCK_ERROR_CODES.rateLimited,
      `Rate limit exceeded: 1 request per second per API key (every endpoint counts). Retry after ${rate.retryAfterSeconds} s`,
      {},
      { 'retry-after': String(rate.retryAfterSeconds) },
    );
  }
  return key;
}

const isOutcome = (value: KeyRecord | Outcome): value is Outcome => 'kind' in value;

/**
 * `POST /v2/doc`: stores a document of the key's company and answers with its `hash_id`; then the mock sends a signed
 * `document` event ("Triggered when documents are created"). The body must be a JSON object; `document_type` and
 * `serial_number` are used when given (strings), otherwise `'invoice'` and the hash id.
 */
export function createDocument(
  input: { authorization: string | null; bodyText: string; receivedAt: number },
  context: OtherEndpointContext,
): Outcome {
  const admitted = admit(input.authorization, input.receivedAt, context);
  if (isOutcome(admitted)) return admitted;
  let body: unknown;
  try {
    body = JSON.parse(input.bodyText);
  } catch {
    body = undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return errorAnswer(400, MOCK_ERROR_CODES.validation, 'The body must be a JSON object describing the document', {
      body: ['Expected a JSON object'],
    });
  }
  const fields = body as Record<string, unknown>;
  const hashId = `doc_${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`;
  context.directory.addDocument(admitted.companyId, hashId);
  const documentType = typeof fields.document_type === 'string' ? fields.document_type : 'invoice';
  const serialNumber = typeof fields.serial_number === 'string' ? fields.serial_number : hashId;
  context.documentCreated({ document_type: documentType, serial_number: serialNumber, hash_id: hashId });
  return jsonAnswer(200, {
    success: true,
    message: 'Document created',
    hash_id: hashId,
    document_type: documentType,
    serial_number: serialNumber,
  });
}

/** `GET /v2/product/list`: the mock's products. */
export function listProducts(
  input: { authorization: string | null; receivedAt: number },
  context: OperationContext,
): Outcome {
  const admitted = admit(input.authorization, input.receivedAt, context);
  if (isOutcome(admitted)) return admitted;
  return jsonAnswer(200, { success: true, products: MOCK_PRODUCTS });
}
