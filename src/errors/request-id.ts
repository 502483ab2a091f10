/** The headers a request id is read from, in order: the common names of gateways and services. */
const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-correlation-id', 'x-amzn-requestid'] as const;

/**
 * The request id an answer carried, when the service or a gateway in front of it sent one. The spec does not name the
 * header ("not shown"), so the common names are read; quote it when asking the service's support about a call.
 */
export function requestIdFrom(headers: Readonly<Record<string, string>>): string | undefined {
  return firstRequestId((name) => headers[name]);
}

/** {@link requestIdFrom} of a `Headers` object (an answer as fetch gives it). */
export function requestIdOf(headers: Headers): string | undefined {
  return firstRequestId((name) => headers.get(name));
}

function firstRequestId(read: (name: string) => string | null | undefined): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = read(name);
    if (value) return value;
  }
  return undefined;
}
