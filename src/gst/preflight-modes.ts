// The preflight's modes, apart from its rules: the client's options check them when a client is made, while the rules
// (with the PIN code and state tables) are imported on the first e-way bill call (see ServiceClient).

/** How the client treats preflight findings; `'warn'` is the default. */
export const PREFLIGHT_MODES = ['off', 'warn', 'strict'] as const;

/**
 * A value of {@link PREFLIGHT_MODES}:
 * - `'off'`: no preflight;
 * - `'warn'`: findings go to `onWarning` (or the logger) and the request is still sent;
 * - `'strict'`: findings are a `ValidationError` and nothing is sent.
 */
export type PreflightMode = (typeof PREFLIGHT_MODES)[number];
