// The `route` option of `request`: the URL template of the call's path, which names its span and labels its metrics.
// Telemetry must stay bounded: a raw path (`/v2/doc/INV-1`, `/v2/doc/INV-2`, ...) would make one span name and one
// metric series per document, so a route is checked to be a template of the path it goes with.
import { describeType, describeValue } from '../internal/describe.js';

/** A placeholder: `{name}`, a name of letters, digits, `_`, `-` or `.`. */
const PLACEHOLDER = /\{([A-Za-z_][\w.-]*)\}/g;
const MAX_ROUTE_LENGTH = 200;

/**
 * The route to use for a `request` to `path`, or `undefined` when none is given. A route is the path with each
 * variable part written as a placeholder (`'/v2/doc/{id}'` for `'/v2/doc/INV-1'`); a placeholder stands for a
 * non-empty part of one segment.
 * @throws {TypeError} naming `options.route` when it is not a string, not a template, or not a template of `path`.
 */
export function checkRoute(route: unknown, path: unknown): string | undefined {
  if (route === undefined) return undefined;
  const bad = (why: string) => new TypeError(`request: options.route ${describeValue(route)} ${why}`);
  if (typeof route !== 'string') {
    throw new TypeError(`request: options.route must be a string such as '/v2/doc/{id}'; got ${describeType(route)}`);
  }
  if (!route.startsWith('/')) throw bad("must start with '/', as the path does (for example '/v2/doc/{id}')");
  if (route.length > MAX_ROUTE_LENGTH) throw bad(`must be at most ${MAX_ROUTE_LENGTH} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
  if (/[?#\u0000-\u0020\u007f]/.test(route)) throw bad('must not hold ?, #, spaces or control characters');
  const literals = route.split(PLACEHOLDER).filter((_, index) => index % 2 === 0);
  if (literals.some((literal) => /[{}]/.test(literal))) {
    throw bad("holds a brace outside a placeholder; a placeholder is '{name}', for example '/v2/doc/{id}'");
  }
  // A template of the path: its literal parts as they are, each placeholder one or more characters of one segment.
  // Matched segment by segment without a regular expression: one built from the route backtracked for minutes on a
  // long path that did not match (six placeholders, 200 characters), and a path is user input.
  if (typeof path === 'string' && !isTemplateOf(route.split('/'), path.split('/'))) {
    throw bad(
      `is not a template of the path ${describeValue(path)}: write the path with each variable part as a {placeholder}`,
    );
  }
  return route;
}

/** Whether each segment of the route matches the path's segment of the same place. */
function isTemplateOf(routeSegments: readonly string[], pathSegments: readonly string[]): boolean {
  return (
    routeSegments.length === pathSegments.length &&
    routeSegments.every((segment, index) => segmentMatches(segment, pathSegments[index] as string))
  );
}

/**
 * Whether `text` is `segment` with each placeholder standing for one or more characters. Literals are placed leftmost
 * in turn, which finds a match whenever one exists (each gap takes any non-empty text); time linear in the lengths
 * times the number of literals.
 */
function segmentMatches(segment: string, text: string): boolean {
  const literals = segment.split(PLACEHOLDER).filter((_, index) => index % 2 === 0);
  const first = literals[0] as string;
  if (literals.length === 1) return text === first;
  const last = literals[literals.length - 1] as string;
  if (!text.startsWith(first)) return false;
  // The text the middle literals and the placeholders share: between the first literal and the last one.
  const end = text.length - last.length;
  if (end < first.length || !text.endsWith(last)) return false;
  let at = first.length;
  for (const literal of literals.slice(1, -1)) {
    const found = text.indexOf(literal, at + 1);
    if (found === -1 || found + literal.length > end - 1) return false;
    at = found + literal.length;
  }
  return end - at >= 1;
}
