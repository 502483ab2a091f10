/**
 * What the emulator decided to do with one request, before any transport renders it:
 * an answer, an answer cut off halfway (`cut`), or a dropped connection.
 */
export type Outcome =
  | {
      readonly kind: 'answer';
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: string;
      /** Send the headers and the first half of the body, then cut the connection. */
      readonly cut?: boolean;
    }
  | { readonly kind: 'drop' };

/** The error-code names the mock answers with where the spec shows none (documented in the README). */
export const MOCK_ERROR_CODES = {
  validation: 'VALIDATION_ERROR',
  rateLimited: 'RATE_LIMITED',
  serverError: 'INTERNAL_SERVER_ERROR',
  notFound: 'NOT_FOUND',
  methodNotAllowed: 'METHOD_NOT_ALLOWED',
} as const;

/** The portal code answered when the company is not connected to the e-way bill portal: "GSTIN is not registerd to this GSP". */
export const NOT_CONNECTED_PORTAL_CODE = 111;

/** The portal code answered for a second e-way bill on one document ("already generated"). */
export const ALREADY_GENERATED_PORTAL_CODE = 604;

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' } as const;

/** A JSON answer. */
export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): Outcome {
  return { kind: 'answer', status, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/** The spec's ErrorEwayBill envelope: `{ success: false, error_code, message, errors }`. */
export function errorAnswer(
  status: number,
  errorCode: string,
  message: string,
  errors: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Outcome {
  return jsonAnswer(status, { success: false, error_code: errorCode, message, errors }, headers);
}

/** An HTML error page like the one a proxy in front of the service shows. */
export function htmlAnswer(status: number): Outcome {
  const body =
    `<!DOCTYPE html>\n<html><head><title>${status} Bad Gateway</title></head>` +
    `<body><center><h1>${status} Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n`;
  return { kind: 'answer', status, headers: { 'content-type': 'text/html; charset=utf-8' }, body };
}

/** Renders an outcome as a Fetch `Response` (for `service.fetch`); a drop becomes a rejected fetch. */
export function toFetchResponse(outcome: Outcome): Response {
  if (outcome.kind === 'drop') {
    throw new TypeError('fetch failed', {
      cause: new Error('The mock service dropped the connection (scripted fault)'),
    });
  }
  const noBody = outcome.status === 204 || outcome.status === 304;
  if (!outcome.cut) {
    return new Response(noBody ? null : outcome.body, { status: outcome.status, headers: outcome.headers });
  }
  const half = new TextEncoder().encode(outcome.body.slice(0, Math.floor(outcome.body.length / 2)));
  let sent = false;
  // The first half is delivered, then the stream fails: a reader sees data, then an error, as with a cut socket.
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) controller.error(new TypeError('terminated: the mock service cut the connection (scripted fault)'));
      else controller.enqueue(half);
      sent = true;
    },
  });
  return new Response(stream, { status: outcome.status, headers: outcome.headers });
}
