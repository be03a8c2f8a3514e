// The reports of a run rebuilt from its raw record: the k6 summary data (lib/raw/rebuilt-summary.ts) of
// the plan the run's settings give, the setup data the run recorded (or what the samples tell of
// it), the one report pipeline (buildReport), and, for a record that stops early, each run's state
// and the stop said in the report (lib/raw/progress.ts).
import type { BenchmarkSpec } from '../benchmarks';
import type { BenchConfig } from '../config/config-types';
import { METRICS } from '../metrics/catalog';
import { k6Options } from '../plan/k6-options';
import { planOf, probeScenario, watchScenario, type Plan } from '../plan/matrix';
import { resetScenario } from '../plan/cache-reset-plan';
import { KEEP, summaryTrendStats } from '../plan/summary-keys';
import { buildReport, type Report, type SummaryDataLike } from '../report/build-report';
import { withRunTrends } from '../report/run-trends';
import type { SetupData, VariantInfo } from '../variants';
import { progressOf, type Progress } from './progress';
import type { RawRecord } from './record';
import { summaryMetrics } from './rebuilt-summary';

export class RawRecordError extends Error {}

export interface Rebuilt {
  report: Report;
  plan: Plan;
  progress: Progress;
  data: SummaryDataLike;
  /** Whether setup's own data was in the record; without it variants' engines and setup's warnings are unknown. */
  setupRecorded: boolean;
}

/** Checks that the record's runs are the plan's: a record of other settings cannot be read with these. */
export function checkPlan(rec: RawRecord, plan: Plan): void {
  const known = new Set(plan.runs.flatMap((r) => [r.scenario, probeScenario(r), watchScenario(r), resetScenario(r)]));
  const foreign = [...rec.scenarios.keys()].filter((s) => !known.has(s));
  if (foreign.length > 0) {
    throw new RawRecordError(
      `the record's runs (${[...rec.scenarios.keys()].slice(0, 6).join(', ')}) are not the plan of these settings (${plan.runs
        .slice(0, 6)
        .map((r) => r.scenario)
        .join(', ')}): give the settings the test used (its <run>.run.json, or the same variables k6 was given)`,
    );
  }
}

/** Setup data as far as the samples tell it, when the record holds no run record: variants with the dialect they were sent in, preflight failures. */
function setupFromSamples(rec: RawRecord, cfg: BenchConfig): Partial<SetupData> {
  const dialects = new Map<string, string>();
  for (const g of rec.metrics.get(METRICS.success.name)?.groups.values() ?? [])
    if (g.tags.variant && g.tags.dialect) dialects.set(g.tags.variant, g.tags.dialect);
  const failures: SetupData['failures'] = [];
  for (const g of rec.metrics.get(METRICS.preflightFailed.name)?.groups.values() ?? []) {
    if (g.tags.variant && g.tags.reason)
      failures.push({
        variant: g.tags.variant,
        reason: g.tags.reason,
        message: `${g.tags.variant}: preflight failed (${g.tags.reason}); the diagnosis was printed by k6 and is not in the raw record`,
      });
  }
  const variants: VariantInfo[] = cfg.variants.map((v) => ({
    variant: v.variant,
    url: v.url,
    dialect: (dialects.get(v.variant) ?? v.dialect) as VariantInfo['dialect'],
    model: v.model,
    engineLabel: 'unknown (not in the raw record)',
    engine: null,
    metrics: null,
    notes: [],
  }));
  return { runId: [...rec.testids][0] ?? cfg.runId, variants, warnings: [], failures, segment: null, sequence: null };
}

/** A record as read, and whether its file ended as k6 closes it (null: cannot tell, a plain file). */
export interface ReadRecord {
  rec: RawRecord;
  closed: boolean | null;
}

/**
 * Rebuilds a run's report from its record. `closed`: the file ended as k6 closes it (null: cannot tell, a plain file). `setup`: the
 * setup data the run recorded, if any.
 */
export function rebuild({ rec, closed }: ReadRecord, spec: BenchmarkSpec, cfg: BenchConfig, setup: Partial<SetupData> | null, now: Date): Rebuilt {
  const plan = planOf(spec.load, cfg, setup?.trace ?? null);
  checkPlan(rec, plan);
  const thresholds = { ...(k6Options(plan, cfg).thresholds as Record<string, string[]>) };
  // Sub-metrics k6 declared beyond the plan's own (the dataset's per-domain and per-turn keys).
  for (const m of rec.metrics.values()) for (const s of m.submetrics) if (!(s.name in thresholds) && m.type !== 'gauge') thresholds[s.name] = [KEEP[m.type]];
  const testRunDurationMs = Number.isFinite(rec.lastMs) ? rec.lastMs - rec.firstMs : 0;
  const metrics = withRunTrends(plan, summaryMetrics(rec, { thresholds, trendStats: summaryTrendStats(cfg), testRunDurationMs }), cfg);
  const setupData = setup ?? setupFromSamples(rec, cfg);
  const data: SummaryDataLike = { metrics, setup_data: setupData, state: { testRunDurationMs } };
  const progress = progressOf(rec, plan, closed);
  const report = buildReport(spec, cfg, plan, data, { now, progress });
  return { report, plan, progress, data, setupRecorded: setup !== null };
}
