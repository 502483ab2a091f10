import { describePortalError } from '../internal/portal-catalogue.js';
import { readBearer } from './api-key.js';
import type { Directory } from './directory.js';
import {
  ALREADY_GENERATED_PORTAL_CODE,
  errorAnswer,
  jsonAnswer,
  MOCK_ERROR_CODES,
  NOT_CONNECTED_PORTAL_CODE,
  type Outcome,
} from './outcome.js';
import type { RateWindow } from './rate-window.js';
import type { MockFault } from './types.js';
import { checkEwayBillBody, checkPortalRules } from './validate-body.js';

/** One create-e-way-bill request, as the operation sees it. */
export interface OperationInput {
  readonly docHashId: string;
  readonly authorization: string | null;
  readonly contentType: string | null;
  readonly bodyText: string;
  readonly receivedAt: number;
  readonly fault: Readonly<MockFault> | undefined;
}

/** What the operation works with. */
export interface OperationContext {
  readonly directory: Directory;
  readonly rateWindow: RateWindow;
}

function portalError(code: number, message?: string, errors?: Record<string, string[]>): Outcome {
  // The portal's own wording, from its published list, as the service would relay it.
  const wording = describePortalError(code).description;
  const text = message ?? `The e-way bill portal rejected the request: ${wording ?? `portal error ${code}`}`;
  return errorAnswer(400, `PORTAL_ERROR_${code}`, text, errors);
}

function ewayBillNumber(): string {
  const digits = crypto.getRandomValues(new Uint8Array(12));
  return `${1 + ((digits[0] ?? 0) % 9)}${Array.from(digits.subarray(1), (d) => d % 10).join('')}`;
}

/**
 * The create-e-way-bill operation (spec, Create e-way bill), in the order the mock checks:
 * authentication (401 UNAUTHORIZED), rate limit (429), permission (401 FORBIDDEN), body (400 VALIDATION_ERROR),
 * document (400 INVALID_HASH_ID), portal connection (PORTAL_ERROR_111), a scripted portal error, the portal's
 * rules (PORTAL_ERROR_{code} of the first preflight finding), a second generation (PORTAL_ERROR_604), then success.
 */
export function createEwayBill(input: OperationInput, context: OperationContext): Outcome {
  const { directory, rateWindow } = context;
  const bearer = readBearer(input.authorization);
  if (bearer.kind === 'missing') return errorAnswer(401, 'UNAUTHORIZED', 'Missing Authorization: Bearer <API key>');
  if (bearer.kind === 'malformed') return errorAnswer(401, 'UNAUTHORIZED', bearer.why);
  const key = directory.keyRecord(bearer.token);
  if (!key) return errorAnswer(401, 'UNAUTHORIZED', 'The API key is not valid (unknown, or regenerated since)');

  const rate = rateWindow.check(key.keyId, input.receivedAt);
  if (!rate.allowed) {
    return errorAnswer(
      429,
      MOCK_ERROR_CODES.rateLimited,
      `Rate limit exceeded: 1 request per second per API key. Retry after ${rate.retryAfterSeconds} s`,
      {},
      { 'retry-after': String(rate.retryAfterSeconds) },
    );
  }
  if (!key.canCreateEwayBill) {
    return errorAnswer(401, 'FORBIDDEN', 'This API key is not allowed to create e-way bills');
  }

  const body = checkEwayBillBody(input.contentType, input.bodyText);
  if (!body.ok) return errorAnswer(400, MOCK_ERROR_CODES.validation, body.message, body.errors);

  const document = directory.document(key.companyId, input.docHashId);
  if (!document) {
    return errorAnswer(400, 'INVALID_HASH_ID', `No document with hash_id '${input.docHashId}' in this company`, {
      doc_hash_id: ['Unknown document hash_id'],
    });
  }
  if (!directory.isPortalConnected(key.companyId)) {
    return portalError(
      NOT_CONNECTED_PORTAL_CODE,
      'The company is not connected to the e-way bill portal (portal: GSTIN is not registerd to this GSP). ' +
        'Connect it in the dashboard before generating e-way bills.',
    );
  }
  if (input.fault?.portalError !== undefined) return portalError(input.fault.portalError, input.fault.message);
  const refusal = checkPortalRules(body.model, document.hashId);
  if (refusal) {
    const { portalCode, finding } = refusal;
    return portalError(portalCode, undefined, {
      [finding.field]: [`${finding.message} [preflight rule ${finding.rule}]`],
    });
  }
  if (document.ewayBill) return portalError(ALREADY_GENERATED_PORTAL_CODE);

  const number = ewayBillNumber();
  directory.setEwayBill(key.companyId, document.hashId, {
    number,
    generatedAt: input.receivedAt,
    model: body.model,
  });
  return jsonAnswer(200, { success: true, message: `E-way bill ${number} generated for document ${document.hashId}` });
}
