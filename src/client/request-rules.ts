// The rules of a `client.request` call checked once ky is loaded: the URL of its path (one that cannot leave the base
// URL, whatever a back-end makes of it) and its query, a GET without a body, and `idempotent`. Imported with ky on the
// first `request` (not with the SDK), so a bundle that splits code keeps it out of the client's first chunk; they run
// before the call asks for its rate-limit slot. The check of a success answer against `options.schema` comes with them.
import type { AnswerInfo } from '../errors/answer.js';
import { UnexpectedResponseError } from '../errors/api-error.js';
import { validationIssue } from '../errors/validation-error.js';
import { describeType, describeValue } from '../internal/describe.js';
import type { HttpMethod } from './call.js';
import type { StandardResult, StandardSchemaV1 } from './request-input.js';
import { responseMeta } from './results.js';

/**
 * The call's `idempotent` option, checked against the method, once a GET is known to carry no body: `false` when the
 * call must never be resent after a possible send, otherwise `undefined` (the method decides).
 * @throws {TypeError} a GET with a body (fetch refuses to send one); an `idempotent` that is not a boolean, or is
 *   `true` on a POST or PATCH.
 */
export function checkCall(method: HttpMethod, body: unknown, idempotent: unknown): false | undefined {
  if (method === 'GET' && body !== undefined) {
    throw new TypeError(
      'request: a GET cannot carry a body (fetch refuses to send one); pass the values as options.query, or use POST',
    );
  }
  if (idempotent === undefined) return undefined;
  if (typeof idempotent !== 'boolean') {
    throw new TypeError(`request: options.idempotent must be a boolean; got ${describeType(idempotent)}`);
  }
  // POST and PATCH: the methods retry.ts does not count as idempotent.
  if (idempotent && (method === 'POST' || method === 'PATCH')) {
    throw new TypeError(
      `request: options.idempotent cannot be true for a ${method}: it is never resent after a possible send; pass retryWhenMaybeSent: true to accept resends`,
    );
  }
  return idempotent ? undefined : false;
}

/** How many times over a segment is percent-decoded, as a back-end that decodes again and again would. */
const MAX_DECODE_ROUNDS = 8;

/** A run of percent-encodings, decoded together so a character of several UTF-8 bytes stays whole. */
const ENCODED_RUN = /(?:%[0-9a-f]{2})+/gi;

/**
 * What is wrong with one segment of a path, read as a lenient back-end may read it (Tomcat, Spring, IIS and the
 * proxies before them): percent-decoded until nothing changes (`%252e` is `.`), as UTF-8 (an overlong `%C0%AE` is
 * `.` to a lenient decoder, so any bytes that are not UTF-8 are refused), NFKC-normalised (a full-width `．` is `.`),
 * and with its `;parameters` dropped (`..;` is `..` to Tomcat). `undefined` for a segment that stays a name.
 */
function segmentProblem(segment: string): string | undefined {
  let text = segment;
  for (let round = 0; text.includes('%'); round++) {
    if (round === MAX_DECODE_ROUNDS) return `is percent-encoded more than ${MAX_DECODE_ROUNDS} times over`;
    let next: string;
    try {
      next = text.replace(ENCODED_RUN, (run) => decodeURIComponent(run));
    } catch {
      return "holds percent-encoded bytes that are not UTF-8 (lenient servers read overlong forms such as %C0%AE as '.')";
    }
    if (next === text) break;
    text = next;
  }
  const read = text.normalize('NFKC');
  if (/[/\\]/.test(read)) {
    return 'must not hold a slash or backslash in any form (double-encoded, overlong UTF-8, full-width)';
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
  if (/[\u0000-\u001f\u007f]/.test(read)) return 'must not hold control characters in any form (such as %00)';
  const name = read.split(';')[0];
  if (name === '.' || name === '..') {
    return "must not hold '.' or '..' segments in any form (percent-encoded, double-encoded, overlong UTF-8, full-width, or followed by ;parameters)";
  }
  return undefined;
}

/**
 * The URL of `path` under `baseUrl`. The key is sent only to the base URL's origin and path prefix, so anything that
 * could point elsewhere is refused before sending (issue 18; the trap of cognite-sdk-js #83).
 * @throws {TypeError} naming what is wrong with `path`.
 */
export function resolvePath(baseUrl: string, path: unknown, query: unknown): string {
  if (typeof path !== 'string') throw new TypeError(`request: path must be a string; got ${describeType(path)}`);
  const bad = (why: string) => new TypeError(`request: path ${describeValue(path)} ${why}`);
  if (!path.startsWith('/')) throw bad("must start with '/' and be relative to baseUrl (for example '/v2/doc')");
  if (path.startsWith('//')) throw bad('must not start with // (a protocol-relative URL to another host)');
  if (/[\\]|%5c/i.test(path)) throw bad('must not hold a backslash, plain or percent-encoded');
  if (/%2f/i.test(path)) throw bad('must not hold a percent-encoded slash (%2F)');
  if (/[?#]/.test(path)) throw bad('must not hold ? or #: pass the query as options.query');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
  if (/[\u0000-\u0020\u007f]/.test(path)) throw bad('must not hold spaces or control characters');
  if (/%(?![0-9a-f]{2})/i.test(path)) throw bad('holds a % that is not a percent-encoding');
  for (const segment of path.slice(1).split('/')) {
    const problem = segmentProblem(segment);
    if (problem) throw bad(problem);
  }
  const base = new URL(`${baseUrl}/`);
  const url = new URL(`${baseUrl}${path}`);
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) {
    throw bad(`resolves outside baseUrl (${base.origin}${base.pathname})`);
  }
  appendQuery(url, query);
  return url.href;
}

function appendQuery(url: URL, query: unknown): void {
  if (query === undefined) return;
  if (typeof query !== 'object' || query === null || Array.isArray(query)) {
    throw new TypeError(`request: options.query must be an object of parameters; got ${describeType(query)}`);
  }
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (!['string', 'number', 'boolean'].includes(typeof item)) {
        throw new TypeError(
          `request: options.query.${name} must be a string, number, boolean or an array of them; got ${describeType(item)}`,
        );
      }
      if (typeof item === 'number' && !Number.isFinite(item)) {
        throw new TypeError(`request: options.query.${name} must be a finite number; got ${String(item)}`);
      }
      url.searchParams.append(name, String(item));
    }
  }
}

/** The issues of a failed Standard Schema check, as the SDK's issues. */
function schemaIssues(result: StandardResult<unknown>): ReturnType<typeof validationIssue>[] {
  return (result.issues ?? []).map((issue) =>
    validationIssue(
      (issue.path ?? []).map((segment) => {
        const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
        return typeof key === 'symbol' ? String(key) : (key as string | number);
      }),
      issue.message,
    ),
  );
}

/**
 * The check of a `request` call's success answer against its `options.schema`: resolves to the schema's value, or
 * rejects with an `UnexpectedResponseError` (`reason: 'schema'`) that keeps the answer (the service acted).
 */
export function answerChecker(
  schema: StandardSchemaV1,
  method: HttpMethod,
  path: string,
): (answer: AnswerInfo) => Promise<unknown> {
  return async (answer) => {
    const data = answer.json;
    const mismatch = (issues: UnexpectedResponseError['issues'], why: string, cause?: unknown) => {
      const error = new UnexpectedResponseError({
        status: answer.status,
        message: `The service's answer to ${method} ${path} ${why}`,
        body: data,
        // An error: every copy of the key redacted, whatever its length.
        headers: { ...responseMeta(answer, answer.redact?.text ?? String).headers },
        request: answer.request,
        issues,
        reason: 'schema',
        contentType: answer.headers.get('content-type') ?? undefined,
        bodyBytes: answer.bodyBytes,
      });
      if (cause !== undefined)
        Object.defineProperty(error, 'cause', { value: cause, configurable: true, writable: true });
      return error;
    };
    // The service answered 2xx: it acted. A schema that throws, or returns something that is not a Standard Schema
    // result, must not turn that into an error that hides it (a caller could send the POST again).
    let checked: unknown;
    try {
      checked = await schema['~standard'].validate(data);
    } catch (error) {
      const why = error instanceof Error ? error.message : describeValue(error);
      throw mismatch(
        [validationIssue([], `the schema threw: ${why}`)],
        'could not be checked: options.schema threw',
        error,
      );
    }
    const result = checked as { value?: unknown; issues?: unknown } | null;
    if (
      typeof result !== 'object' ||
      result === null ||
      (result.issues !== undefined && !Array.isArray(result.issues))
    ) {
      const got = `the schema returned ${describeValue(checked)}, not a Standard Schema result ({ value } or { issues })`;
      throw mismatch([validationIssue([], got)], 'could not be checked: options.schema returned no result');
    }
    if (result.issues) {
      throw mismatch(schemaIssues(result as Parameters<typeof schemaIssues>[0]), 'does not match the schema given');
    }
    return result.value;
  };
}
