// Cost and energy per output token, new ÷ baseline: figures that must not rise. A regression is a
// rise beyond the tolerance with the whole interval, as the throughput's rule has it.
import { ratioOfMeans } from '../stats/t-interval';
import type { Interval } from '../stats/bootstrap';
import type { Ratio } from '../report/figures/ab-comparison';
import { hourly } from '../report/figures/token-price';
import { ENERGY_NO_URL } from '../report/sections/energy-section';
import type { BenchSummary, SummaryCostRun, SummaryEnergyRun, SummaryRecord } from './read-summary';

/** Dollars per million tokens of one side, as its summary.json's cost section gives them. */
export interface CostSide {
  output: number | null;
  input: number | null;
  /** Dollars per hour of the deployment: GPU_HOUR_COST × GPUS. */
  perHour: number;
}

/**
 * A per-token figure that must not rise (cost, energy), new ÷ baseline. A regression is a rise
 * beyond the tolerance with the whole interval, as the throughput's rule has it.
 */
export interface RiseComparison<S> {
  baseline: S | null;
  next: S | null;
  ratio: Ratio | null;
  regression: boolean;
  /** Why there is no ratio; null when there is one. */
  notCompared: string | null;
}

/**
 * Cost per output token, new ÷ baseline: the deployments' hourly ratio ÷ the output throughput
 * ratio, its interval from the throughput's (the price is set, not measured).
 */
export type CostComparison = RiseComparison<CostSide>;

/** Joules per output token of one side, as its summary.json's energy section gives them. */
export interface EnergySide {
  jPerToken: number;
  /** The per-slice ratios; null when the summary has none (or one slice). */
  slices: number[] | null;
}

/** Energy per output token, new ÷ baseline, its interval Welch's t on the log ratio of the per-slice J/token. */
export type EnergyComparison = RiseComparison<EnergySide>;

/** A percentile interval need not hold the estimate it is about; widened to hold it (never narrowed). */
export function holding(ci: Interval | null, value: number): Interval | null {
  return ci === null ? null : { lo: Math.min(ci.lo, value), hi: Math.max(ci.hi, value) };
}

/** One side's cost of a cell and variant, or why it has none. */
export function costSide(s: BenchSummary, r: SummaryRecord, who: string): CostSide | string {
  if (s.cost === undefined) return `the ${who}'s summary was written before costs were recorded`;
  const row: SummaryCostRun | undefined = s.cost?.runs.find((x) => x.cell === r.cell && x.variant === r.variant);
  if (!row || row.gpu_hour_cost_usd === null) return `GPU_HOUR_COST not set for ${r.variant} in the ${who}`;
  if (row.output_usd_per_million_tokens === null) return `the ${who}: ${row.not_measured ?? 'output throughput not measured'}`;
  return { output: row.output_usd_per_million_tokens, input: row.input_usd_per_million_tokens, perHour: hourly(row.gpu_hour_cost_usd, row.gpus) };
}

/**
 * The rise rule shared by cost and energy: each side's figure or why it has none (a reason naming
 * "in the baseline" / "in the new run", said once when both sides share it), and the ratio or why not.
 */
function judgeRise<S>(baseline: S | string, next: S | string, ratioOf: (b: S, n: S) => Ratio | string, tolerance: number): RiseComparison<S> {
  const sides = { baseline: typeof baseline === 'string' ? null : baseline, next: typeof next === 'string' ? null : next };
  const why = [baseline, next].filter((x): x is string => typeof x === 'string');
  const both = why.length === 2 && why[0].replace(/ in the baseline$/, '') === why[1].replace(/ in the new run$/, '');
  if (why.length)
    return { ...sides, ratio: null, regression: false, notCompared: both ? why[0].replace(/ in the baseline$/, ' in either run') : why.join('; ') };
  const r = ratioOf(baseline as S, next as S);
  if (typeof r === 'string') return { ...sides, ratio: null, regression: false, notCompared: r };
  return { ...sides, ratio: r, regression: r.ci !== null && r.ci.lo > 1 + tolerance, notCompared: null };
}

export function judgeCost(baseline: CostSide | string, next: CostSide | string, throughput: Ratio | null, tolerance: number): CostComparison {
  return judgeRise(
    baseline,
    next,
    (b, n) => {
      if (throughput === null || !(throughput.value > 0)) return 'output throughput not compared';
      const h = n.perHour / b.perHour;
      const t = throughput.ci;
      // Cost per token falls as throughput rises: the interval's ends swap.
      return { value: h / throughput.value, ci: t !== null && t.lo > 0 ? { lo: h / t.hi, hi: h / t.lo } : null };
    },
    tolerance,
  );
}

/** One side's energy per output token of a cell and variant, or why it has none. */
export function energySide(s: BenchSummary, r: SummaryRecord, who: string): EnergySide | string {
  if (s.energy === undefined) return `the ${who}'s summary was written before energy was recorded`;
  const row: SummaryEnergyRun | undefined = s.energy?.runs.find((x) => x.cell === r.cell && x.variant === r.variant);
  if (!row || row.not_measured === ENERGY_NO_URL) return `GPU_METRICS_URL not set for ${r.variant} in the ${who}`;
  if (row.j_per_output_token === null) return `the ${who}: ${row.not_measured ?? 'energy not measured'}`;
  const sl = row.j_per_output_token_slices;
  return { jPerToken: row.j_per_output_token, slices: Array.isArray(sl) && sl.length > 1 ? sl : null };
}

export function judgeEnergy(baseline: EnergySide | string, next: EnergySide | string, tolerance: number): EnergyComparison {
  return judgeRise(
    baseline,
    next,
    (b, n) => {
      const value = n.jPerToken / b.jPerToken;
      if (!(value > 0) || !Number.isFinite(value)) return 'no energy to divide by';
      const ci = n.slices && b.slices ? (ratioOfMeans(n.slices, b.slices, 0.95)?.ci ?? null) : null;
      return { value, ci: holding(ci, value) };
    },
    tolerance,
  );
}
