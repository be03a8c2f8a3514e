// CACHE_RESET: which runs start with the server's prefix cache emptied, and when that happens (the
// keys its outcome is recorded under are in summary-keys.ts). The first run's reset is made by
// setup(); a later run's by a one-iteration scenario in the gap before it (after the previous
// run's graceful stop, before its own load), so no load of this test is in flight when the cache
// is emptied.
import type { CacheResetMode } from '../config/config-types';
import { CACHE_RESET_OUTCOMES, type CacheResetOutcome } from '../server-metrics/reset-outcome';
import { RUN_GAP_MS, type Plan, type Run } from './matrix';

export { CACHE_RESET_OUTCOMES, type CacheResetOutcome };

/**
 * The runs that start with a reset: every run (cell), each variant's first (variant; with REPEATS,
 * its first of every repeat, so no repeat inherits a cache the one before warmed), none (never).
 */
export function resetDue(plan: Pick<Plan, 'runs'>, mode: CacheResetMode): Run[] {
  if (mode === 'never') return [];
  if (mode === 'cell') return plan.runs;
  const seen = new Set<string>();
  const key = (r: Run) => `${r.variant}/${r.repeat ?? 1}`;
  return plan.runs.filter((r) => !seen.has(key(r)) && seen.add(key(r)));
}

/** The reset scenario of a run whose reset is not setup's. */
export function resetScenario(run: Run): string {
  return `reset_${run.scenario}`;
}

/** setup() resets before the runs that start at once; the others get a scenario in the gap before them. */
export function resetInSetup(run: Run): boolean {
  return run.startMs < RUN_GAP_MS;
}

/** When a run's reset scenario starts, and how long it may take: the gap between runs, less a margin. */
export function resetSlot(run: Run): { startMs: number; budgetMs: number } {
  return { startMs: run.startMs - RUN_GAP_MS, budgetMs: RUN_GAP_MS - 200 };
}
