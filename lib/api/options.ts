// llmOptions: the user's k6 options, with what the report needs added and nothing that changes the
// test: the sub-metrics it reads declared by always-true thresholds (k6 keeps only those in the
// summary) and the trend statistics it reads. No scenario, no threshold that can fail is added.
import { TREND_STATS } from '../plan/summary-keys';
import type { LlmClient } from './client';
import { DEFAULT_SLICES, keepThresholds, mergeThresholds, scenariosOf, windowMode, type OptionsLike } from './plan';
import { state } from './state';

export interface ReportSettings {
  /** Time slices per scenario for throughput intervals (constant-vus / constant-arrival-rate scenarios of one duration). Default 6; 1 turns them off. */
  slices?: number;
  /** The clients the report tells apart. Default: every client created so far (create them before calling this). */
  clients?: readonly LlmClient[];
}

export function llmOptions<T extends OptionsLike>(options: T, o: ReportSettings = {}): T {
  const slices = o.slices ?? DEFAULT_SLICES;
  if (!Number.isInteger(slices) || slices < 1 || slices > 60) throw new Error(`k6-llm-bench: slices must be a whole number from 1 to 60, got ${slices}.`);
  state.slices = slices;
  state.options = options;
  const scenarios = scenariosOf(options);
  const names = (o.clients ?? state.clients).map((c) => c.name);
  const keep = keepThresholds(scenarios, names, windowMode(scenarios, slices));
  const stats = (options.summaryTrendStats as string[] | undefined) ?? ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'];
  return {
    ...options,
    thresholds: mergeThresholds(options.thresholds, keep),
    summaryTrendStats: [...stats, ...TREND_STATS.filter((s) => !stats.includes(s))],
  };
}
