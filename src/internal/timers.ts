/** The longest delay JavaScript runtimes keep for a timer (2^31 - 1 ms): a longer one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;
