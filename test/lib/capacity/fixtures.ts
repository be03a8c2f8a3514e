// Shared pieces of the capacity unit tests: k6-shaped trends from samples, and settings.
import { GRID_STATS, QUANTILE_GRID, statName, type TrendValues } from '../../../lib/stats/quantile-merge';
import { quantileSorted } from '../../../lib/stats/bootstrap';
import { readCapacitySettings, type CapacitySettings } from '../../../lib/capacity/settings';

/** What k6 reports for a trend of these samples with PARTIAL=true's grid. */
export function k6Trend(xs: number[]): TrendValues {
  const s = [...xs].sort((a, b) => a - b);
  const v: TrendValues = { count: s.length, min: s[0], max: s[s.length - 1], avg: s.reduce((a, b) => a + b, 0) / s.length, med: quantileSorted(s, 0.5) };
  QUANTILE_GRID.forEach((r, k) => (v[GRID_STATS[k]] = quantileSorted(s, r)));
  v[statName(0.99)] = quantileSorted(s, 0.99);
  return v;
}

export function settings(env: Record<string, string> = {}): CapacitySettings {
  return readCapacitySettings({ SLO_E2E_P99: '1s', ...env });
}
