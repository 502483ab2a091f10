import { MAX_TIMER_MS } from '../internal/timers.js';
// setTimeout fires at once for delays above MAX_TIMER_MS; no wait here is meant to be that long.

/**
 * Resolves after `ms` (never by time, for an infinite `ms`), at once when `signal` aborts, or when any function put in
 * `wakers` is called. Whatever ends it clears the timer and every listener, so an ended pause holds nothing.
 */
export function pause(ms: number, signal: AbortSignal, wakers?: Set<() => void>): Promise<void> {
  return new Promise<void>((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      wakers?.delete(wake);
      signal.removeEventListener('abort', wake);
      resolve();
    };
    const timer = Number.isFinite(ms) ? setTimeout(wake, Math.min(ms, MAX_TIMER_MS)) : undefined;
    wakers?.add(wake);
    signal.addEventListener('abort', wake, { once: true });
  });
}
