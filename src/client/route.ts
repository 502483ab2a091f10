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
  const pattern = new RegExp(
    `^${literals.map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`,
  );
  if (typeof path === 'string' && !pattern.test(path)) {
    throw bad(
      `is not a template of the path ${describeValue(path)}: write the path with each variable part as a {placeholder}`,
    );
  }
  return route;
}
