// The sub-metrics an ADAPTERS run adds to the summary (only threshold-named sub-metrics reach
// handleSummary, see summary-keys.ts): per run × adapter the figures of the per-adapter rows and
// verdicts, per run × adapter × slice the two window counters the verdicts' intervals are
// bootstrapped from. Bounded: at most 16 adapters (lib/config/adapters-config.ts).
import type { AdapterWeight } from '../config/config-types';
import { METRICS, type MetricKey } from '../metrics/catalog';
import { KEEP, subKey } from './summary-keys';
import type { Plan } from './matrix';

export const PER_ADAPTER: MetricKey[] = ['e2e', 'ttft', 'success', 'inputTokens', 'outputTokens', 'specVerifySteps', 'specTokens'];
export const PER_ADAPTER_SLICE: MetricKey[] = ['windowE2e', 'windowRequests'];

export function adapterThresholds(plan: Plan, adapters: readonly AdapterWeight[]): Record<string, string[]> {
  const th: Record<string, string[]> = {};
  const keep = (key: string, m: MetricKey) => (th[key] = [KEEP[METRICS[m].type]]);
  for (const run of plan.runs) {
    for (const { name: adapter } of adapters) {
      for (const m of PER_ADAPTER) keep(subKey(m, run.scenario, { adapter }), m);
      for (let k = 0; k < plan.slices; k++) for (const m of PER_ADAPTER_SLICE) keep(subKey(m, run.scenario, { slice: String(k), adapter }), m);
    }
  }
  return th;
}
