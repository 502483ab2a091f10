/**
 * A part of the SDK imported on first use, not with the SDK (ky on the first send, the preflight's rules on the first
 * e-way bill call, the error mapping on the first error answer): a bundler that splits code keeps it out of the
 * client's first chunk. `value` is there once loaded, so later calls use it without a turn of the event loop. An
 * import that failed (a chunk a browser could not fetch) is tried again by the next `load()`.
 */
export interface LazyPart<T> {
  readonly value: T | undefined;
  load(): Promise<T>;
}

export function lazyPart<T>(importer: () => Promise<T>): LazyPart<T> {
  let value: T | undefined;
  let loading: Promise<T> | undefined;
  return {
    get value() {
      return value;
    },
    load() {
      loading ??= importer().then(
        (loaded) => {
          value = loaded;
          return loaded;
        },
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      );
      return loading;
    },
  };
}
