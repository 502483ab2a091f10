// The one handle on queue-place.ts, imported on first use (its own file: queue-place.ts imports the types of
// queue-options.ts, so queue-options.ts cannot import it back).
import { lazyPart } from '../internal/lazy.js';

/** Where a waiter stands, and what ends its wait (src/throttle/queue-place.ts): imported on first use. */
export const queuePlace = /* @__PURE__ */ lazyPart(() => import('./queue-place.js'));
