// The SDK's send times, as a test observes them without touching src/: ServiceClient's `fetch` option is called when the
// SDK hands a request to the network, after the rate limiter granted its slot. No vitest import: child processes of the
// tests (test/redis/limiter-child.ts) bundle this too.

/** One request as the SDK handed it to fetch: its e-way bill id and `Date.now()` at that moment. */
export interface Send {
  readonly id: string;
  readonly at: number;
}

/** A `fetch` for ServiceClient's `fetch` option that records each call in `sends` (the SDK's send time), then fetches. */
export function stampingFetch(sends: Send[]): typeof fetch {
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    sends.push({ id: url.split('/').filter(Boolean).at(-1) ?? '', at: Date.now() });
    return fetch(input, init);
  };
}
