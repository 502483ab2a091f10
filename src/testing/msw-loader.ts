// msw is an optional peer dependency: only `service.handlers` needs it. This is the ES module build's loader:
// msw is imported once, when the kit loads, through the runner's own module system (Node, Vitest, Jest's ESM mode),
// so the handlers come from the same msw instance as the test's `setupServer`. When msw is missing or fails to load,
// the kit still loads; `handlers` then throws the reason. (The CommonJS build uses msw-loader.cjs.ts instead.)
import type * as Msw from 'msw';
import { mswLoadError } from './msw-error.js';

const loaded: { readonly msw: typeof Msw } | { readonly error: unknown } = await import('msw').then(
  (msw) => ({ msw }),
  (error: unknown) => ({ error }),
);

/** The msw module. @throws {Error} when msw is not installed or cannot be loaded, saying what to do. */
export function loadMsw(): typeof Msw {
  if ('msw' in loaded) return loaded.msw;
  throw mswLoadError(loaded.error);
}
