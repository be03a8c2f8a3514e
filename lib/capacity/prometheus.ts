// The capacity answer as Prometheus series, beside the k6_llm_* series the step runs stream: one
// gauge per variant for the capacity and each end of its interval, the goodput there, and the A/B
// ratio. Labels stay low-cardinality: the run's testid, the variant, the loop kind and the SLO
// text. A bound that does not exist (censored, no interval) is not written, never a zero. Pure.
import type { RemoteWriteSample } from '../prometheus/remote-write';
import type { CapacityReport } from './capacity-report';
import { sloText } from './capacity-report';
import type { CapacitySettings } from './settings';

export const CAPACITY_SERIES = {
  capacity: 'k6_llm_capacity',
  lower: 'k6_llm_capacity_lower',
  upper: 'k6_llm_capacity_upper',
  atLeast: 'k6_llm_capacity_at_least',
  goodput: 'k6_llm_capacity_goodput',
  /** Dollars per million output tokens at the capacity step (GPU_HOUR_COST set), with its interval. */
  cost: 'k6_llm_capacity_usd_per_million_output_tokens',
  costLower: 'k6_llm_capacity_usd_per_million_output_tokens_lower',
  costUpper: 'k6_llm_capacity_usd_per_million_output_tokens_upper',
  /** Joules per output token at the capacity step (GPU_METRICS_URL), with its interval. */
  energy: 'k6_llm_capacity_joules_per_output_token',
  energyLower: 'k6_llm_capacity_joules_per_output_token_lower',
  energyUpper: 'k6_llm_capacity_joules_per_output_token_upper',
  ratio: 'k6_llm_capacity_ratio',
  ratioLower: 'k6_llm_capacity_ratio_lower',
  ratioUpper: 'k6_llm_capacity_ratio_upper',
} as const;

export function capacitySeries(s: CapacitySettings, r: CapacityReport, timestampMs: number): RemoteWriteSample[] {
  const out: RemoteWriteSample[] = [];
  const common = { testid: r.runId, loop: s.loop.name, slo: sloText(s.criteria) };
  const put = (name: string, extra: Record<string, string>, v: number | null) => {
    if (v !== null && Number.isFinite(v)) out.push({ labels: { __name__: name, ...common, ...extra }, value: v, timestampMs });
  };
  for (const variant of r.variants) {
    const l = { variant: variant.variant };
    put(CAPACITY_SERIES.capacity, l, variant.capacity.crossing);
    put(CAPACITY_SERIES.lower, l, variant.capacity.lo);
    put(CAPACITY_SERIES.upper, l, variant.capacity.hi);
    put(CAPACITY_SERIES.atLeast, l, variant.capacity.atLeast);
    put(CAPACITY_SERIES.goodput, l, variant.goodputAtCapacity);
    const price = variant.cost.usdPerMillionOutputTokens;
    put(CAPACITY_SERIES.cost, l, price?.value ?? null);
    put(CAPACITY_SERIES.costLower, l, price?.ci?.lo ?? null);
    put(CAPACITY_SERIES.costUpper, l, price?.ci?.hi ?? null);
    put(CAPACITY_SERIES.energy, l, variant.energy.jPerToken);
    put(CAPACITY_SERIES.energyLower, l, variant.energy.ci?.lo ?? null);
    put(CAPACITY_SERIES.energyUpper, l, variant.energy.ci?.hi ?? null);
  }
  if (r.ratio) {
    const l = { a: r.ratio.a, b: r.ratio.b };
    put(CAPACITY_SERIES.ratio, l, r.ratio.ratio.value);
    put(CAPACITY_SERIES.ratioLower, l, r.ratio.ratio.lo);
    put(CAPACITY_SERIES.ratioUpper, l, r.ratio.ratio.hi);
  }
  return out;
}
