// A URL's query can carry a partner's data (a GSTIN, a phone number, a session token): what leaves the process for
// telemetry or logs keeps the parameter names, which tell calls apart, and none of the values.

/** What replaces each query value, as the OpenTelemetry semantic conventions write it in `url.full`. */
export const QUERY_VALUE_REDACTED = 'REDACTED';

/**
 * `url` with the value of every query parameter replaced by `REDACTED` (an empty value stays empty; the names stay):
 * `https://h/v2/doc?gstin=29AAA&page=2` becomes `https://h/v2/doc?gstin=REDACTED&page=REDACTED`.
 */
export function withoutQueryValues(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  // `request` refuses `#` in a path and the query is URL-encoded, so a fragment can only follow the query.
  const end = url.indexOf('#', start);
  const query = url.slice(start + 1, end < 0 ? undefined : end);
  const redacted = query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      return equals < 0 || equals === pair.length - 1 ? pair : `${pair.slice(0, equals)}=${QUERY_VALUE_REDACTED}`;
    })
    .join('&');
  return `${url.slice(0, start)}?${redacted}`;
}
