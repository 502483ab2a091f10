import { builtinModule } from '../internal/builtin.js';
/**
 * Tells the client when Node's built-in fetch has written a request to its socket, through undici's diagnostics
 * channels. The limiter spaces a key's requests from that moment: the service counts a request when it arrives, and on
 * a cold connection (TCP, TLS) that can be well after fetch was called. Where the channels are absent (edge runtimes,
 * a custom fetch, msw) nothing is reported and the limiter measures from the fetch call.
 */

/** What the tracker reports about one request. */
export interface WriteWatch {
  /** The request was created by undici and is being written. */
  leaving(): void;
  /** Its body has been written. */
  written(): void;
}

interface UndiciRequestLike {
  readonly origin?: unknown;
  readonly path?: unknown;
  readonly method?: unknown;
}

interface ChannelModule {
  subscribe(name: string, onMessage: (message: unknown) => void): void;
}

const STATE = Symbol.for('invoicing-service-sdk.write-tracker');

interface TrackerState {
  /** Requests handed to fetch whose undici request has not been seen yet, by origin + path. */
  readonly unbound: Map<string, WriteWatch[]>;
  /** Undici's request objects of ours, until their body is written. */
  readonly bound: WeakMap<object, WriteWatch>;
}

function requestOf(message: unknown): UndiciRequestLike | undefined {
  const request = (message as { request?: unknown } | null)?.request;
  return typeof request === 'object' && request !== null ? (request as UndiciRequestLike) : undefined;
}

/** The tracker shared by every copy of the SDK in the process; `undefined` where undici's channels are absent. */
function tracker(): TrackerState | undefined {
  const holder = globalThis as { [STATE]?: TrackerState | null };
  if (holder[STATE] !== undefined) return holder[STATE] ?? undefined;
  holder[STATE] = null;
  const channels = builtinModule('node:diagnostics_channel') as ChannelModule | undefined;
  if (typeof channels?.subscribe !== 'function') return undefined;
  const state: TrackerState = { unbound: new Map(), bound: new WeakMap() };
  // A subscriber that throws would surface as an uncaught exception: every handler swallows its own failures.
  channels.subscribe('undici:request:create', (message) => {
    try {
      const request = requestOf(message);
      if (typeof request?.method !== 'string' || typeof request.origin !== 'string') return;
      const key = `${request.method} ${request.origin}${String(request.path)}`;
      const queue = state.unbound.get(key);
      const pending = queue?.shift();
      if (!pending || !queue) return;
      if (queue.length === 0) state.unbound.delete(key);
      state.bound.set(request as object, pending);
      pending.leaving();
    } catch {
      // Tracking is an optimisation of timing; the limiter falls back to the fetch call.
    }
  });
  channels.subscribe('undici:request:bodySent', (message) => {
    try {
      const request = requestOf(message);
      const pending = request ? state.bound.get(request as object) : undefined;
      if (!pending || !request) return;
      state.bound.delete(request as object);
      pending.written();
    } catch {
      // As above.
    }
  });
  holder[STATE] = state;
  return state;
}

/**
 * Watches the request (`method` to `url`) that is about to be handed to fetch. Returns a function that stops watching (call it when
 * the attempt settles); a no-op where nothing can be watched.
 */
export function watchWrite(method: string, url: string, watch: WriteWatch): () => void {
  const state = tracker();
  if (!state) return () => {};
  let key: string;
  try {
    const parsed = new URL(url);
    key = `${method} ${parsed.origin}${parsed.pathname}${parsed.search}`;
  } catch {
    return () => {};
  }
  // `watch` is the attempt's own object: its identity is what `unwatch` looks for.
  const pending = watch;
  const queue = state.unbound.get(key);
  if (queue) queue.push(pending);
  else state.unbound.set(key, [pending]);
  return () => {
    const current = state.unbound.get(key);
    const index = current?.indexOf(pending) ?? -1;
    if (current && index !== -1) {
      current.splice(index, 1);
      if (current.length === 0) state.unbound.delete(key);
    }
  };
}
