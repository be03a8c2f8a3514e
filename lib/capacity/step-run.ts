// One step: one k6 test at one load, read back from its partial result (PARTIAL=true): the trends with their
// quantile grid (so runs at one load pool exactly), the request counts, and the figures the one
// report pipeline derives from them (goodput, throughput, errors, the client self-check,
// preflight failures). Pure: the partial's text comes in, the driver does the file I/O.
import { BENCHMARKS } from '../benchmarks';
import { loadConfig } from '../config/load';
import { planOf } from '../plan/matrix';
import { subKey } from '../plan/summary-keys';
import { mergeInstanceResults, readInstanceResult } from '../report/merge-instances';
import { buildReport } from '../report/build-report';
import { ENERGY_NO_URL, energy as energySection } from '../report/sections/energy-section';
import { valueOf } from '../report/sections/section';
import type { Interval } from '../stats/bootstrap';
import type { TrendValues } from '../stats/quantile-merge';
import type { RunSample } from './observe';

export interface StepRun extends RunSample {
  /** The run's measurement window length, ms (its DURATION). */
  loadMs: number;
  goodput: number | null;
  throughput: number | null;
  /** The throughput's 95% interval over the run's steady slices; null or absent: none. */
  throughputCi?: Interval | null;
  /** GPU_METRICS_URL: the GPUs' joules over the steady slices, their output tokens and the J/token interval; null or absent: not measured. */
  energy?: { joules: number; tokens: number; ci: Interval | null } | null;
  /** Why energy is not measured (the report's energy section's reason); null when measured. */
  energyWhy?: string | null;
  requestRate: number | null;
  dropped: number;
  variantDown: boolean;
  /** Failed requests by class, for the stop reason. */
  errors: Record<string, number>;
  /** Why the client, not the server, may have set this run's numbers (empty when it did not). */
  clientLimited: string[];
  /** Why the variant could not be measured at all (preflight), or null. */
  preflight: string | null;
}

function trend(metrics: Record<string, { values: Record<string, number> }>, key: string): TrendValues | null {
  const v = metrics[key]?.values;
  return v && (v.count ?? 0) > 0 ? v : null;
}

export function readStepRun(name: string, partialText: string, now = new Date()): StepRun {
  const partial = readInstanceResult(name, partialText);
  const spec = BENCHMARKS[partial.benchmark];
  if (!spec) throw new Error(`${name}: unknown benchmark '${partial.benchmark}'`);
  const merged = mergeInstanceResults([{ name, partial }]);
  const cfg = loadConfig(spec, { ...merged.variables, RUN_ID: merged.runId }, now);
  const plan = planOf(spec.load, cfg);
  const report = buildReport(spec, cfg, plan, merged.data, { now });
  const failure = report.preflightFailures[0];
  const run = report.runs[0];
  if (!run || failure) {
    return {
      ttft: null,
      itl: null,
      e2e: null,
      ok: 0,
      failed: 0,
      judged: 0,
      good: 0,
      loadMs: 0,
      goodput: null,
      throughput: null,
      throughputCi: null,
      energy: null,
      energyWhy: null,
      requestRate: null,
      dropped: 0,
      variantDown: false,
      errors: {},
      clientLimited: [],
      preflight: failure ? failure.headline || failure.reason : 'the run measured nothing (no run in its report)',
    };
  }
  const m = partial.metrics;
  const s = run.scenario;
  const good = m[subKey('good', s)]?.values.count ?? 0;
  const e = valueOf(report, energySection)?.rows[0] ?? null;
  return {
    // SLO_TTFT_OF=answer: the capacity search holds the answer's first token to SLO_TTFT_P99.
    ttft: trend(m, subKey(cfg.slo.ttftOf === 'answer' ? 'ttftAnswer' : 'ttft', s)),
    itl: trend(m, subKey('itl', s)),
    e2e: trend(m, subKey('e2e', s)),
    ok: run.requests.ok,
    failed: run.requests.failed + run.requests.unreachable,
    judged: run.e2e?.count ?? 0,
    good,
    loadMs: plan.runs[0].durationMs,
    goodput: run.goodput,
    throughput: run.throughput,
    throughputCi: run.throughputCi,
    energy: e && e.jPerToken !== null ? { joules: e.joules as number, tokens: e.tokens as number, ci: e.ci } : null,
    energyWhy: e === null ? ENERGY_NO_URL : e.why,
    requestRate: run.requestRate,
    dropped: run.dropped,
    variantDown: run.variantDown > 0,
    errors: run.requests.errors as Record<string, number>,
    clientLimited: run.client.limited,
    preflight: null,
  };
}
