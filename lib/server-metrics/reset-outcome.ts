// What a prefix-cache reset can come to, apart from the code that makes one (cache-reset.ts, which
// brings the engine profiles): the plan and the reports name the outcomes without evaluating it.

/** What came of a reset: done, refused while requests ran, the route absent (404/501), no route in the engine's profile, or another failure. */
export const CACHE_RESET_OUTCOMES = ['reset', 'refused', 'missing', 'no_route', 'failed'] as const;
export type CacheResetOutcome = (typeof CACHE_RESET_OUTCOMES)[number];
