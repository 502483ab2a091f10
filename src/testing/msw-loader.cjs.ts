// The CommonJS build's msw loader (tsup.config.ts swaps it in for msw-loader.ts): msw is required on first use of
// `service.handlers`, never when the kit loads. Plain Node (22.12+) requires msw 2 and msw 3 (ES modules) fine;
// Jest's default CommonJS mode cannot, and the error then says to use Jest's ESM mode.
import type * as Msw from 'msw';
import { mswLoadError } from './msw-error.js';

declare const require: (id: string) => unknown;

let msw: typeof Msw | undefined;

/** The msw module. @throws {Error} when msw is not installed or cannot be loaded, saying what to do. */
export function loadMsw(): typeof Msw {
  if (msw !== undefined) return msw;
  try {
    msw = require('msw') as typeof Msw;
  } catch (error) {
    throw mswLoadError(error);
  }
  return msw;
}
