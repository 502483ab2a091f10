const LINEAGE = Symbol.for('invoicing-service-sdk.error-lineage');

type Lineage = readonly string[];

/** Options common to every error of the SDK. */
export interface ServiceErrorOptions {
  /** The underlying error, when there is one. */
  cause?: unknown;
}

/**
 * The root of every error this SDK throws (`ValidationError`, `ApiError` and its subclasses,
 * `ConnectionError`, `TimeoutError`, the webhook errors).
 *
 * Every error has a stable string {@link ServiceError.code}, so callers can branch on it without `instanceof`.
 * `instanceof` works too, and also across the ESM and CJS copies of the SDK (the dual-package hazard):
 * each error carries its class lineage under a registered symbol, and `instanceof` checks that.
 *
 * @example
 * try { await client.createEwayBill(id, model) }
 * catch (error) { if (error instanceof ServiceError) console.error(error.code, error.message) }
 */
export class ServiceError extends Error {
  /** The stable code of this error's class, for example `'UNAUTHORIZED'` or `'VALIDATION_ERROR'`. */
  static readonly code: string = 'SERVICE_ERROR';
  override name = 'ServiceError';
  /** The stable code of this error's class: the same value as the class's static `code`. */
  readonly code: string;

  constructor(message: string, options: ServiceErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = (new.target as typeof ServiceError).code;
    const lineage: string[] = [];
    for (let ctor = new.target as typeof ServiceError; ctor?.code; ctor = Object.getPrototypeOf(ctor)) {
      if (!lineage.includes(ctor.code)) lineage.push(ctor.code);
      if (ctor === ServiceError) break;
    }
    Object.defineProperty(this, LINEAGE, { value: Object.freeze(lineage) satisfies Lineage });
  }

  /**
   * `instanceof` that also recognises errors of another copy of this SDK (its ESM and CJS builds,
   * or two installed versions), by their class lineage.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class being tested against, which subclasses inherit.
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    const lineage = (value as { [LINEAGE]?: Lineage } | null)?.[LINEAGE];
    // biome-ignore lint/complexity/noThisInStatic: as above.
    return typeof value === 'object' && Array.isArray(lineage) && lineage.includes(this.code);
  }

  /** A plain object for logs and JSON; it never contains the API key or a webhook secret. */
  toJSON(): Record<string, unknown> {
    return { ...(this as object), name: this.name, code: this.code, message: this.message };
  }
}

/** Whether `value` is an error of this SDK (of any copy of it). */
export function isServiceError(value: unknown): value is ServiceError {
  return value instanceof ServiceError;
}
