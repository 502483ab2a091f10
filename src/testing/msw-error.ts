/** The error `service.handlers` throws when msw cannot be loaded: what went wrong, and the way out. */
export function mswLoadError(cause: unknown): Error {
  const code = (cause as { code?: unknown } | null)?.code;
  const message = cause instanceof Error ? cause.message : String(cause);
  const missing = (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && /['"]msw['"/]/.test(message);
  const esmOnly = code === 'ERR_REQUIRE_ESM' || /Must use import to load ES Module/i.test(message);
  const why = missing
    ? 'msw is not installed: run `npm install --save-dev msw` (msw 2 or 3)'
    : esmOnly
      ? 'msw is an ES module and this runner loaded the kit as CommonJS (Jest does by default): run the test in ' +
        "Jest's ESM mode (the README's 'Testing your integration' links the recipe: https://github.com/invoicing-service/invoicing-service-sdk/blob/main/docs/testing.md#jest), or use startMockServer() or service.fetch, which need no msw"
      : `msw could not be loaded (${message})`;
  return new Error(`invoicing-service-sdk/testing: service.handlers needs msw; ${why}`, { cause });
}
