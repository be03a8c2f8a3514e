// The per-adapter part of a report (ADAPTERS runs): per run and adapter the requests, failures,
// latency and tokens, and in an A/B (or against the baseline in a comparison of N) a verdict per
// adapter on mean e2e latency with its bootstrap interval. Read from the sub-metrics
// lib/plan/adapter-keys.ts declares, through the same per-tag figures as the dataset's domains. Pure.
import type { BenchConfig } from '../../config/config-types';
import type { Plan, Run } from '../../plan/matrix';
import { subKey } from '../../plan/summary-keys';
import { compareGroups, tagFigures, type DomainComparison, type DomainFigures } from './domain-figures';
import type { SummaryMetrics } from './run-figures';

export interface AdapterRun {
  scenario: string;
  variant: string;
  cellId: string;
  /** One per ADAPTERS entry, in its order; `domain` holds the adapter's name. */
  adapters: Array<DomainFigures & { inputTokens: number }>;
}

export interface AdapterReport {
  /** ADAPTERS as given: name and weight. */
  mix: Array<{ name: string; weight: number }>;
  runs: AdapterRun[];
  comparisons: DomainComparison[];
}

export function adapterReport(cfg: BenchConfig, plan: Plan, m: SummaryMetrics, kind: string, where: (run: Run) => string): AdapterReport | null {
  const mix = cfg.adapters;
  if (!mix) return null;
  const order = (r: Run) => plan.cells.findIndex((c) => c.id === r.cell.id) * cfg.variants.length + cfg.variants.findIndex((v) => v.variant === r.variant);
  const runs: AdapterRun[] = [...plan.runs]
    .sort((x, y) => order(x) - order(y))
    .map((r) => ({
      scenario: r.scenario,
      variant: r.variant,
      cellId: r.cell.id,
      adapters: mix.map((a) => ({
        ...tagFigures(m, plan, r.scenario, 'adapter', a.name),
        inputTokens: m[subKey('inputTokens', r.scenario, { adapter: a.name })]?.values.count ?? 0,
      })),
    }));
  const pairs: Array<[string, string]> = [];
  if (kind === 'ab' && cfg.variants.length === 2) pairs.push([cfg.variants[0].variant, cfg.variants[1].variant]);
  if (kind === 'compare') for (const variant of cfg.variants) if (variant.variant !== cfg.baseline) pairs.push([variant.variant, cfg.baseline]);
  // In a comparison of N every interval is widened so that all of them hold together 95% of the time.
  const level = 1 - 0.05 / Math.max(1, kind === 'compare' ? pairs.length * mix.length : 1);
  const comparisons: DomainComparison[] = [];
  for (const [a, b] of pairs) {
    for (const cell of plan.cells) {
      const ra = runs.find((r) => r.cellId === cell.id && r.variant === a);
      const rb = runs.find((r) => r.cellId === cell.id && r.variant === b);
      const run = plan.runs.find((r) => r.cell.id === cell.id) as Run;
      if (ra && rb) comparisons.push(compareGroups({ ...ra, groups: ra.adapters }, { ...rb, groups: rb.adapters }, where(run), level, 'adapter'));
    }
  }
  return { mix: mix.map((a) => ({ ...a })), runs, comparisons };
}
