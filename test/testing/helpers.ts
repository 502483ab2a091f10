import type { MockEmulator } from 'invoicing-service-sdk/testing';

/** Options of {@link post}. */
export interface PostOptions {
  /** The API key; `null` sends no Authorization header. @default service.apiKey */
  key?: string | null;
  /** A whole Authorization header value, instead of `Bearer <key>`. */
  authorization?: string;
  /** @default 'application/json' */
  contentType?: string | null;
  /** A raw body; otherwise `model` is sent as JSON. */
  raw?: string;
  method?: string;
}

/** Sends a create-e-way-bill request straight to the emulator core (no network, no msw). */
export function post(
  service: MockEmulator,
  hashId: string,
  model: unknown,
  options: PostOptions = {},
): Promise<Response> {
  const headers = new Headers();
  const key = options.key === undefined ? service.apiKey : options.key;
  if (options.authorization !== undefined) headers.set('authorization', options.authorization);
  else if (key !== null) headers.set('authorization', `Bearer ${key}`);
  const contentType = options.contentType === undefined ? 'application/json' : options.contentType;
  if (contentType !== null) headers.set('content-type', contentType);
  const method = options.method ?? 'POST';
  return service.handle(
    new Request(`${service.baseUrl}/v2/ewaybill/${encodeURIComponent(hashId)}`, {
      method,
      headers,
      ...(method === 'GET' ? {} : { body: options.raw ?? JSON.stringify(model) }),
    }),
  );
}

/** A clock that only moves when told to. */
export function manualClock(start = 1_000_000): { now: () => number; advance(ms: number): void } {
  let t = start;
  return {
    now: () => t,
    advance(ms) {
      t += ms;
    },
  };
}
