// The sub-metrics a dataset run adds to the summary (see summary-keys.ts: only threshold-named
// sub-metrics reach handleSummary): per run the length distributions, per run × domain the figures
// of the per-domain report and verdicts, per run × domain × slice the two window counters the
// per-domain interval is bootstrapped from, and per run × turn the multi-turn figures. Declared
// only for the domains and turns the dataset has (known at init), because k6 matches every sample
// of a metric against each of its sub-metrics: the count stays bounded (at most 32 domains, 8 turn
// tags) and the token-id path declares none.
import { METRICS, type MetricKey } from '../metrics/catalog';
import { SPEC_ACCEPTED_BINS, specAcceptedLabel } from '../metrics/samples';
import { KEEP, subKey } from './summary-keys';
import type { Plan } from './matrix';

export const PER_RUN_DATASET: MetricKey[] = ['promptLength', 'outputLength', 'lengthRatio'];
export const PER_DOMAIN: MetricKey[] = ['e2e', 'ttft', 'success', 'outputTokens', 'specVerifySteps', 'specTokens'];
export const PER_DOMAIN_SLICE: MetricKey[] = ['windowE2e', 'windowRequests'];
export const PER_TURN: MetricKey[] = ['e2e', 'ttft', 'inputTokens', 'cachedTokens'];

export type { DatasetShape } from '../dataset/bucket-plan';
import type { DatasetShape } from '../dataset/bucket-plan';

/** Whether the report breaks results down by domain. */
export const byDomain = (shape: Pick<DatasetShape, 'domains'>): boolean => shape.domains.length >= 2;

export function datasetThresholds(plan: Plan, shape: DatasetShape): Record<string, string[]> {
  const th: Record<string, string[]> = {};
  const keep = (key: string, m: MetricKey) => (th[key] = [KEEP[METRICS[m].type]]);
  for (const run of plan.runs) {
    const s = run.scenario;
    for (const m of PER_RUN_DATASET) keep(subKey(m, s), m);
    if (byDomain(shape)) {
      for (const domain of shape.domains) {
        for (const m of PER_DOMAIN) keep(subKey(m, s, { domain }), m);
        for (let k = 0; k < plan.slices; k++) for (const m of PER_DOMAIN_SLICE) keep(subKey(m, s, { slice: String(k), domain }), m);
        for (let j = 0; j < SPEC_ACCEPTED_BINS; j++) keep(subKey('specStepsByAccepted', s, { accepted: specAcceptedLabel(j), domain }), 'specStepsByAccepted');
      }
    }
    for (const turn of shape.turns) for (const m of PER_TURN) keep(subKey(m, s, { turn }), m);
  }
  return th;
}
