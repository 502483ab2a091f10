// The optional peer `@opentelemetry/api`, loaded once on first use and shared by the client and the webhook handlers.
// Without it (not installed, or a runtime that cannot load it) everything here answers `undefined` and nothing fails.
//
// The OpenTelemetry API keeps its registrations (tracer provider, meter provider, propagator, context manager) on a
// process-wide global, so the copy loaded here sees what the application registered with its own copy.

import type * as OtelApi from '@opentelemetry/api';

export type Otel = typeof OtelApi;

/** The instrumentation scope of every span and instrument the SDK makes. */
export const SCOPE_NAME = 'invoicing-service-sdk';

/** The prefix of the SDK's own attributes. */
export const ATTRIBUTE_PREFIX = 'invoicing_service.';

// A specifier in a variable: a partner's bundler neither fails on the absent peer nor bundles it (the API must be the
// application's own copy anyway, or at least share its global).
const SPECIFIER = '@opentelemetry/api';

let loaded: Otel | undefined;
let loading: Promise<Otel | undefined> | undefined;

/** Loads the peer once. Never rejects: resolves to `undefined` without it. */
export function loadOtel(): Promise<Otel | undefined> {
  loading ??= import(/* webpackIgnore: true */ /* @vite-ignore */ SPECIFIER).then(
    (module: Otel & { default?: Otel }) => {
      loaded = typeof module.trace?.getTracer === 'function' ? module : module.default;
      return loaded;
    },
    () => undefined,
  );
  return loading;
}

/** The peer, when {@link loadOtel} has loaded it. */
export function otel(): Otel | undefined {
  return loaded;
}

interface Cached<T> {
  readonly provider: object;
  readonly value: T;
}

/**
 * A value made from the current global provider, made again when the application registers another one (or disables
 * it, as tests do). `make` answers `undefined` for a provider that records nothing.
 */
export function perProvider<T>(current: () => object, make: (provider: object) => T): () => T {
  let cached: Cached<T> | undefined;
  return () => {
    const provider = current();
    if (cached?.provider !== provider) cached = { provider, value: make(provider) };
    return cached.value;
  };
}
