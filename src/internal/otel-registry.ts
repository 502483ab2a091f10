// The process-wide registry of `@opentelemetry/api` 1.x (see ./otel.ts), read on its own: this is all a call needs
// before it knows that an application registered OpenTelemetry, so nothing more is loaded without one.

const REGISTRY = Symbol.for('opentelemetry.js.api.1');

/** The registry of `@opentelemetry/api` 1.x, when a copy of it was loaded; `undefined` otherwise. */
export function otelRegistry(): { readonly trace?: unknown; readonly metrics?: unknown } | undefined {
  const found = (globalThis as { [REGISTRY]?: unknown })[REGISTRY];
  if (typeof found !== 'object' || found === null) return undefined;
  const { version } = found as { version?: unknown };
  return typeof version === 'string' && version.startsWith('1.') ? found : undefined;
}

/** Whether the application registered a tracer or a meter provider: the one check made before anything is loaded. */
export function otelRegistered(): boolean {
  const found = otelRegistry();
  return found !== undefined && (found.trace !== undefined || found.metrics !== undefined);
}
