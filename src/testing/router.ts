import { createEwayBill } from './create-eway-bill.js';
import { createDocument, listProducts, type OtherEndpointContext } from './other-endpoints.js';
import { errorAnswer, MOCK_ERROR_CODES, type Outcome } from './outcome.js';
import type { MockFault } from './types.js';

const EWAYBILL_PATH = /^\/v2\/ewaybill\/([^/]+)$/;

/** Where a request goes: the create-e-way-bill endpoint (with its decoded `doc_hash_id`), another one, or nowhere. */
export type Route =
  | { readonly kind: 'ewaybill'; readonly docHashId: string }
  | { readonly kind: 'doc' }
  | { readonly kind: 'products' }
  | { readonly kind: 'none' };

/** Matches a path below the partner prefix (for example `/api/partner`) to the one endpoint the spec details. */
export function matchRoute(pathname: string, prefix: string): Route {
  const inner = pathname.startsWith(`${prefix}/`) ? pathname.slice(prefix.length) : undefined;
  if (inner === '/v2/doc') return { kind: 'doc' };
  if (inner === '/v2/product/list') return { kind: 'products' };
  const raw = inner === undefined ? undefined : EWAYBILL_PATH.exec(inner)?.[1];
  if (raw === undefined) return { kind: 'none' };
  try {
    return { kind: 'ewaybill', docHashId: decodeURIComponent(raw) };
  } catch {
    return { kind: 'ewaybill', docHashId: raw }; // a stray '%' is kept as sent, and is then an unknown document
  }
}

/** One request as the router sees it. */
export interface RoutedRequest {
  readonly request: Request;
  readonly route: Route;
  readonly prefix: string;
  readonly bodyText: string;
  readonly receivedAt: number;
  readonly fault: Readonly<MockFault> | undefined;
}

/** Answers a request that no transport fault took: 404 off the endpoint, 405 for another method, else the operation. */
export function routeRequest(input: RoutedRequest, context: OtherEndpointContext): Outcome {
  const { request, route, prefix } = input;
  const path = new URL(request.url).pathname;
  if (route.kind === 'none') {
    return errorAnswer(
      404,
      MOCK_ERROR_CODES.notFound,
      `No such endpoint: ${request.method} ${path}. The mock emulates POST ${prefix}/v2/ewaybill/{doc_hash_id}, ` +
        `POST ${prefix}/v2/doc and GET ${prefix}/v2/product/list`,
    );
  }
  const method = route.kind === 'products' ? 'GET' : 'POST';
  if (request.method !== method) {
    return errorAnswer(405, MOCK_ERROR_CODES.methodNotAllowed, `Use ${method} for ${path}`, {}, { allow: method });
  }
  const authorization = request.headers.get('authorization');
  if (route.kind === 'doc') {
    return createDocument({ authorization, bodyText: input.bodyText, receivedAt: input.receivedAt }, context);
  }
  if (route.kind === 'products') return listProducts({ authorization, receivedAt: input.receivedAt }, context);
  return createEwayBill(
    {
      docHashId: route.docHashId,
      authorization: request.headers.get('authorization'),
      contentType: request.headers.get('content-type'),
      bodyText: input.bodyText,
      receivedAt: input.receivedAt,
      fault: input.fault,
    },
    context,
  );
}
