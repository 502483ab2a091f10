/** India Standard Time is UTC+05:30 all year (no daylight saving): e-way bill dates and webhook timestamps use it. */
export const IST_OFFSET_MINUTES = 330;

/** {@link IST_OFFSET_MINUTES} in milliseconds. */
export const IST_OFFSET_MS = IST_OFFSET_MINUTES * 60 * 1000;
