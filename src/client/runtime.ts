declare const __SDK_VERSION__: string;

/** The version of this SDK, written in at build time. */
export const SDK_VERSION: string = __SDK_VERSION__;

/** The `User-Agent` the client sends: the SDK, its version, and the JavaScript runtime. */
export function userAgent(): string {
  const proc = (globalThis as { process?: { versions?: { node?: string } } }).process;
  const runtime = proc?.versions?.node ? `node/${proc.versions.node}` : 'js';
  return `invoicing-service-sdk/${SDK_VERSION} ${runtime}`;
}

/**
 * Whether this looks like a web browser, where an API key would be exposed: a window with a document, or a browser's
 * Web Worker (`importScripts` exists only there; server runtimes such as Node, Deno and edge workers lack it).
 */
export function isBrowserLike(): boolean {
  const g = globalThis as { window?: unknown; document?: unknown; importScripts?: unknown };
  const page =
    typeof g.window === 'object' && g.window !== null && typeof g.document === 'object' && g.document !== null;
  return page || typeof g.importScripts === 'function';
}

/** Reads an environment variable where there is a `process.env` (Node, Bun, Deno's Node compatibility). */
export function readEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = env?.[name]?.trim();
  return value === '' ? undefined : value;
}
